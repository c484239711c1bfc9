package io.durablecheckout.activities;

import io.durablecheckout.api.checkout.ActivityIntent;

/**
 * Tells the Checkout that a worker holds an intent's lease, so the lease runs while an owner holds it and not while the
 * intent waits in a queue (docs/leases-and-fencing.md, "The lease"). A worker opens a {@link Hold} when it picks an
 * intent up and closes it when its result is published.
 */
public interface LeaseKeeper {

    /** No heartbeats (tests that drive a worker directly). */
    LeaseKeeper NONE = intent -> () -> {
    };

    Hold hold(ActivityIntent intent);

    /** An open hold: heartbeats continue until it is closed (or it has lasted the keeper's maximum). */
    interface Hold extends AutoCloseable {
        @Override
        void close();
    }
}
