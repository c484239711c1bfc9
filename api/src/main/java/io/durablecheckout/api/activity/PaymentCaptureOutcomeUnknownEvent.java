package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/**
 * The capture request may have reached the provider but no answer came back (a timeout): unknown, never failed. The
 * capture is asked again under the same operation id, which the provider answers from its record if it happened.
 */
@Revision("1")
public record PaymentCaptureOutcomeUnknownEvent(CheckoutId checkoutId, OperationId operationId,
                                                FencingToken fencingToken, String reason)
        implements ActivityResultEvent {
    @Override
    public Step step() {
        return Step.CAPTURE_PAYMENT;
    }
}
