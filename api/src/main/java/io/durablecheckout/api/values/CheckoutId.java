package io.durablecheckout.api.values;

import java.util.Objects;

/** Identity of one checkout. {@code toString()} is the raw value: Axon associates sagas by it. */
public record CheckoutId(String value) {
    public CheckoutId {
        Objects.requireNonNull(value, "checkout id");
        if (value.isBlank()) throw new IllegalArgumentException("checkout id must not be blank");
    }

    @Override
    public String toString() {
        return value;
    }
}
