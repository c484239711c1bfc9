package io.durablecheckout.orchestrator.readmodel;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.orchestrator.config.EventProcessingConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventhandling.Timestamp;
import org.springframework.stereotype.Component;

import java.time.Instant;

/**
 * Keeps checkout_summary up to date. Idempotent: a redelivered event (a stolen segment claim re-runs a batch) has a
 * sequence number not above the stored version and is skipped. Counts the workflow's metrics as it goes.
 */
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@Component
@ProcessingGroup(EventProcessingConfiguration.SUMMARY_PROCESSOR)
public class CheckoutSummaryProjection {

    private final CheckoutSummaryRepository repository;
    private final MeterRegistry meters;

    public CheckoutSummaryProjection(CheckoutSummaryRepository repository, MeterRegistry meters) {
        this.repository = repository;
        this.meters = meters;
    }

    @EventHandler
    public void on(CheckoutEvent event, @SequenceNumber long sequence, @Timestamp Instant at) {
        CheckoutView current = repository.findForUpdate(event.checkoutId().value()).orElse(null);
        if (current != null && current.version >= sequence) {
            return;
        }
        repository.upsert(CheckoutViewFolder.fold(current, event, sequence, at));
        count(event);
    }

    private void count(CheckoutEvent event) {
        if (event instanceof ActivityIntent intent) {
            meters.counter("checkout.leases.granted", "step", intent.step().slug()).increment();
        } else if (event instanceof ActivityLeaseRenewedEvent e) {
            meters.counter("checkout.leases.renewed", "step", e.step().slug()).increment();
        } else if (event instanceof ActivityLeaseExpiredEvent e) {
            meters.counter("checkout.leases.expired", "step", e.step().slug()).increment();
        } else if (event instanceof ActivityResultRejectedEvent e) {
            meters.counter("checkout.fencing.stale.results.rejected", "step", e.step().slug()).increment();
        } else if (event instanceof CheckoutCompletedEvent) {
            meters.counter("checkout.finished", "state", "completed").increment();
        } else if (event instanceof CheckoutCancelledEvent e) {
            meters.counter("checkout.finished", "state", "cancelled", "reason",
                    e.reason() == null ? "none" : e.reason().name().toLowerCase()).increment();
        } else if (event instanceof ManualReviewRequiredEvent e) {
            meters.counter("checkout.manual.review", "step", e.blockedStep().slug()).increment();
        }
    }
}
