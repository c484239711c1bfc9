package io.durablecheckout.api.values;

import java.util.Objects;

public record TenantId(String value) {
    public TenantId {
        Objects.requireNonNull(value, "tenant id");
        if (value.isBlank()) throw new IllegalArgumentException("tenant id must not be blank");
    }

    @Override
    public String toString() {
        return value;
    }
}
