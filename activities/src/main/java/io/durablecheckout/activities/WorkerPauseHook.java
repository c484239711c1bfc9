package io.durablecheckout.activities;

import io.durablecheckout.api.checkout.ActivityIntent;

/**
 * Called by every worker after it has read an intent and before it touches its resource. The default does nothing;
 * tests replace it to park a worker past its lease, which is exactly the window fencing tokens exist for.
 */
@FunctionalInterface
public interface WorkerPauseHook {

    WorkerPauseHook NONE = intent -> {
    };

    void afterIntentRead(ActivityIntent intent);
}
