package io.durablecheckout.api.values;

import java.util.Objects;

public record LineItem(Sku sku, int quantity) {
    public LineItem {
        Objects.requireNonNull(sku, "sku");
        if (quantity <= 0) throw new IllegalArgumentException("quantity must be positive, was " + quantity);
    }
}
