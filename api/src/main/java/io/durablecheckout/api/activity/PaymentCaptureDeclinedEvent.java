package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/** The provider refused the capture for good: no retry changes it (a lapsed or cancelled hold, a declined capture). */
@Revision("1")
public record PaymentCaptureDeclinedEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken,
                                          String reason) implements ActivityResultEvent {
    @Override
    public Step step() {
        return Step.CAPTURE_PAYMENT;
    }
}
