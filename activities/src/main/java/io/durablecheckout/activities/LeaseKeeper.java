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

    /**
     * Claims the lease now, on the calling thread (in its unit of work: the claim commits with the processor's batch,
     * so an intent the processor has passed is always claimed), then renews it while the hold is open: for work handed
     * to another thread, after which only a claim says that an owner is on it.
     */
    default Hold claim(ActivityIntent intent) {
        return hold(intent);
    }

    /** An open hold: heartbeats continue until it is closed (or it has lasted the keeper's maximum). */
    interface Hold extends AutoCloseable {
        @Override
        void close();
    }
}
