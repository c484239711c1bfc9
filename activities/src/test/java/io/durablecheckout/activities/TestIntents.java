package io.durablecheckout.activities;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;

import java.time.Instant;

/** Builders for intents' leases in tests. */
public final class TestIntents {

    public static final Instant EXPIRES = Instant.parse("2030-01-01T00:00:00Z");

    private TestIntents() {
    }

    public static Lease lease(CheckoutId checkoutId, Step step, long token) {
        return new Lease(OperationId.of(checkoutId, step), (int) token, new FencingToken(token), EXPIRES);
    }

    public static FencingToken token(long value) {
        return new FencingToken(value);
    }
}
