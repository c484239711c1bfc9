package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;

/**
 * {@code ActivityRetryScheduledEvent} revision 1 (stored without a revision, or as "1") to 2: the field {@code detail}
 * was renamed {@code lastFailure}. Without this, the strict event serializer refuses the old event (unknown
 * {@code detail}, missing {@code lastFailure}); a lenient one would have read the failure as null.
 */
final class ActivityRetryScheduledUpcaster extends FirstRevisionUpcaster {

    ActivityRetryScheduledUpcaster() {
        super(ActivityRetryScheduledEvent.class);
    }

    @Override
    void upcast(ObjectNode event) {
        event.set("lastFailure", event.remove("detail"));
    }
}
