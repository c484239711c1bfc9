package io.durablecheckout.api.values;

import java.util.Objects;

/** An amount in minor units (cents) of an ISO-4217 currency; never floating point. */
public record Money(long minor, String currency) {
    public Money {
        Objects.requireNonNull(currency, "currency");
        if (!currency.matches("[A-Z]{3}")) {
            throw new IllegalArgumentException("currency must be a 3-letter ISO 4217 code, was '" + currency + "'");
        }
    }

    @Override
    public String toString() {
        return minor + " " + currency;
    }
}
