package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

@Revision("1")
public record ReceiptDeliverySucceededEvent(CheckoutId checkoutId, OperationId operationId,
                                            FencingToken fencingToken) implements ActivityResultEvent {
    @Override
    public Step step() {
        return Step.SEND_RECEIPT;
    }
}
