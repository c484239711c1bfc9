package io.durablecheckout.api.command;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

import java.time.Instant;

/**
 * The tenant captures a deferred checkout's payment as it ships: {@code amount} up to the authorized one, or the whole
 * authorized amount when {@code null}. Asking again once the capture was requested changes nothing.
 */
public record CapturePaymentCommand(@TargetAggregateIdentifier CheckoutId checkoutId, Money amount,
                                    Instant requestedAt) implements CheckoutCommand {
}
