package io.durablecheckout.activities;

import io.durablecheckout.api.checkout.ActivityIntent;

/**
 * Called for every intent a worker reads, inside its lease hold and before the handler touches the resource (by
 * {@link IntentHandling}, not by the handlers). The default does nothing; fault injection (the
 * orchestrator's {@code faults} package) and tests supply one to park a worker past its lease, which is exactly the
 * window fencing tokens exist for.
 */
@FunctionalInterface
public interface WorkerPauseHook {

    WorkerPauseHook NONE = intent -> {
    };

    void afterIntentRead(ActivityIntent intent);
}
