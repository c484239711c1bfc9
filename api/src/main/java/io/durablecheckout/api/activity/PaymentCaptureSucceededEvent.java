package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/** The provider captured {@code amount} under the capture's operation id (or had already, under the same id). */
@Revision("1")
public record PaymentCaptureSucceededEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken,
                                           String providerReference, Money amount) implements ActivityResultEvent {
    @Override
    public Step step() {
        return Step.CAPTURE_PAYMENT;
    }
}
