package io.durablecheckout.api.values;

import java.util.Objects;

public record Sku(String value) {
    public Sku {
        Objects.requireNonNull(value, "sku");
        if (value.isBlank()) throw new IllegalArgumentException("sku must not be blank");
    }

    @Override
    public String toString() {
        return value;
    }
}
