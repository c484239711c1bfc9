package io.durablecheckout.api.query;

import io.durablecheckout.api.values.Sku;

import java.util.List;

public record UnknownSkus(List<Sku> skus) {
}
