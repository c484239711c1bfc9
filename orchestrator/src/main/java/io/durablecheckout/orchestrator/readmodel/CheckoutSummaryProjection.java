package io.durablecheckout.orchestrator.readmodel;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.orchestrator.config.EventProcessingConfiguration;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.ReplayStatus;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps checkout_summary up to date, one processor batch at a time: the events of a batch are collected, and when its
 * unit of work prepares to commit, the touched rows are locked and loaded with one query, folded in memory and written
 * with one upsert. Idempotent: an event whose sequence number is not above the row's version is skipped (a stolen
 * segment claim re-runs a batch). Counts the workflow's metrics after the batch commits, but not while replaying.
 */
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@Component
@ProcessingGroup(EventProcessingConfiguration.SUMMARY_PROCESSOR)
public class CheckoutSummaryProjection {

    private static final String BATCH = CheckoutSummaryProjection.class.getName() + ".batch";

    private final CheckoutSummaryRepository repository;
    private final MeterRegistry meters;
    private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();

    public CheckoutSummaryProjection(CheckoutSummaryRepository repository, MeterRegistry meters) {
        this.repository = repository;
        this.meters = meters;
    }

    @EventHandler
    public void on(CheckoutEvent event, @SequenceNumber long sequence, @Timestamp Instant at, ReplayStatus replay) {
        Applied applied = new Applied(event, sequence, at, replay.isReplay());
        if (!CurrentUnitOfWork.isStarted()) {
            write(List.of(applied), null);
            return;
        }
        UnitOfWork<?> root = CurrentUnitOfWork.get().root();
        List<Applied> batch = root.getOrComputeResource(BATCH, key -> {
            List<Applied> events = new ArrayList<>();
            root.onPrepareCommit(u -> write(events, u));
            return events;
        });
        batch.add(applied);
    }

    /** A rebuild starts from an empty table: the version check would otherwise skip every replayed event. */
    @ResetHandler
    public void onReset() {
        repository.truncate();
    }

    private void write(List<Applied> events, UnitOfWork<?> unitOfWork) {
        Set<String> ids = new LinkedHashSet<>();
        events.forEach(e -> ids.add(e.event.checkoutId().value()));
        Map<String, CheckoutView> views = repository.findForUpdate(ids);
        Map<String, CheckoutView> changed = new LinkedHashMap<>();
        List<CheckoutEvent> toCount = new ArrayList<>();
        List<StateLeft> left = new ArrayList<>();
        for (Applied e : events) {
            String id = e.event.checkoutId().value();
            CheckoutView current = views.get(id);
            if (current != null && current.version >= e.sequence) {
                continue;
            }
            String before = current == null ? null : current.state;
            Instant since = current == null ? null : current.stateSince; // fold mutates the view: read it first
            CheckoutView next = CheckoutViewFolder.fold(current, e.event, e.sequence, e.at);
            views.put(id, next);
            changed.put(id, next);
            if (!e.replay) {
                toCount.add(e.event);
                if (before != null && since != null && !before.equals(next.state)) {
                    left.add(new StateLeft(before, Duration.between(since, e.at)));
                }
            }
        }
        repository.upsertAll(changed.values());
        Runnable record = () -> {
            toCount.forEach(this::count);
            left.forEach(l -> Timer.builder("checkout.state.duration").tag("state", l.state)
                    .description("time a checkout spent in a state, recorded when it leaves it")
                    .register(meters).record(l.time));
        };
        if (unitOfWork == null) {
            record.run();
        } else if (!toCount.isEmpty()) {
            unitOfWork.afterCommit(u -> record.run()); // a rolled-back batch is re-run: count once
        }
    }

    private record StateLeft(String state, Duration time) {
    }

    private void count(CheckoutEvent event) {
        if (event instanceof CheckoutCreatedEvent) {
            counter("checkout.started");
        } else if (event instanceof PaymentReconciliationScheduledEvent) {
            counter("checkout.reconciliation.scheduled");
        }
        if (event instanceof ActivityIntent intent) {
            counter("checkout.leases.granted", "step", intent.step().slug());
            if (intent instanceof PaymentReconciliationRequestedEvent) {
                counter("checkout.reconciliation.lookups");
            }
        } else if (event instanceof ActivityLeaseRenewedEvent e) {
            counter("checkout.leases.renewed", "step", e.step().slug());
        } else if (event instanceof ActivityLeaseExpiredEvent e) {
            counter("checkout.leases.expired", "step", e.step().slug());
        } else if (event instanceof ActivityResultRejectedEvent e) {
            counter("checkout.fencing.stale.results.rejected", "step", e.step().slug());
        } else if (event instanceof CheckoutCompletedEvent) {
            // the same tag keys as a cancellation's: Prometheus refuses a second key set under one name
            counter("checkout.finished", "state", "completed", "reason", "none");
        } else if (event instanceof CheckoutCancelledEvent e) {
            counter("checkout.finished", "state", "cancelled", "reason",
                    e.reason() == null ? "none" : e.reason().name().toLowerCase());
        } else if (event instanceof ManualReviewRequiredEvent e) {
            counter("checkout.manual.review", "step", e.blockedStep().slug());
            if (e.blockedStep() == io.durablecheckout.api.values.Step.RECONCILE_PAYMENT) {
                counter("checkout.reconciliation.escalations"); // the lookups ran out: an operator decides
            }
        }
    }

    private void counter(String name, String... tags) {
        List<String> key = new ArrayList<>(tags.length + 1);
        key.add(name);
        key.addAll(List.of(tags));
        counters.computeIfAbsent(key, k -> meters.counter(name, tags)).increment();
    }

    private record Applied(CheckoutEvent event, long sequence, Instant at, boolean replay) {
    }
}
