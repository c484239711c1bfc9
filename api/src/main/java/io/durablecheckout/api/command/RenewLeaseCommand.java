package io.durablecheckout.api.command;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

import java.time.Instant;

public record RenewLeaseCommand(@TargetAggregateIdentifier CheckoutId checkoutId, ActivityHeartbeatEvent heartbeat,
                                Instant observedAt) implements CheckoutCommand {
}
