package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import org.axonframework.serialization.Revision;

/** The provider refused the capture for good (the hold lapsed or was cancelled, the capture was declined). */
@Revision("1")
public record PaymentCaptureFailedEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken,
                                        String reason) implements CheckoutEvent {
}
