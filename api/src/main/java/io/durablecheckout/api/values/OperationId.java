package io.durablecheckout.api.values;

import java.util.Objects;

/**
 * Idempotency key of one side effect. Derived from the checkout id and the step, never random, so a retry,
 * a new lease owner or a replay all name the same operation.
 */
public record OperationId(String value) {
    public OperationId {
        Objects.requireNonNull(value, "operation id");
        if (value.isBlank()) throw new IllegalArgumentException("operation id must not be blank");
    }

    public static OperationId of(CheckoutId checkoutId, Step step) {
        return new OperationId(checkoutId.value() + "/" + step.slug());
    }

    @Override
    public String toString() {
        return value;
    }
}
