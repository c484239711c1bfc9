package io.durablecheckout.orchestrator.service;

import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.privacy.PersonalData;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.commandhandling.gateway.CommandGateway;

import java.time.Instant;

/**
 * A submission as the code before docs/decisions.md 95 made it (the steps {@link CheckoutService#submit} takes on its
 * Axon Server path), under the old name-based id: a checkout accepted before an upgrade, for the tests of its retry.
 */
public final class LegacySubmission {

    private LegacySubmission() {
    }

    public static CheckoutId submit(PersonalData vault, CommandGateway commands, TenantId tenant, String idempotencyKey,
                                    CheckoutRequest request) {
        CheckoutRequestValidator.Valid valid = CheckoutRequestValidator.validate(request);
        CheckoutId id = CheckoutIds.legacyIdFor(tenant, idempotencyKey);
        PersonalData.SealedCheckout sealed = vault.sealCheckout(id.value(), valid.paymentToken(), valid.customerEmail(),
                CheckoutService.canonical(valid));
        commands.sendAndWait(new StartCheckoutCommand(id, tenant, valid.items(), valid.amount(), sealed.paymentToken(),
                sealed.customerEmail(), idempotencyKey, sealed.fingerprint(), Instant.now()));
        return id;
    }
}
