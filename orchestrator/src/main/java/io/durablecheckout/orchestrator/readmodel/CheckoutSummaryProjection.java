package io.durablecheckout.orchestrator.readmodel;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.ReplayStatus;
import org.axonframework.eventhandling.ResetHandler;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps checkout_summary up to date, one processor batch at a time: the rows the batch touches are locked and loaded
 * with one query when its first event arrives, each event is folded in memory as it is handled (so a failure belongs
 * to that event, and the dead-letter queue parks that checkout only), and when the unit of work prepares to commit
 * the changed rows are written with one upsert. Idempotent: an event whose sequence number is not above the row's version is skipped (a stolen
 * segment claim re-runs a batch). Counts the workflow's metrics after the batch commits, but not while replaying.
 */
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@Component
@ProcessingGroup(CheckoutSummaryProjection.PROCESSOR)
public class CheckoutSummaryProjection {

    /** The name of the read model's event processor (its token, its dead-letter queue). */
    public static final String PROCESSOR = "checkout-summary";

    private static final String BATCH = CheckoutSummaryProjection.class.getName() + ".batch";

    private final CheckoutSummaryRepository repository;
    private final MeterRegistry meters;
    private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> stateDurations = new ConcurrentHashMap<>();

    public CheckoutSummaryProjection(CheckoutSummaryRepository repository, MeterRegistry meters) {
        this.repository = repository;
        this.meters = meters;
        // Every series exists from the start at zero: a dashboard (and a test) can tell "none happened" from "not
        // counted", and rate() has a first sample before the first event.
        for (String name : List.of("checkout.started", "checkout.refunds", "checkout.reconciliation.scheduled",
                "checkout.reconciliation.lookups", "checkout.reconciliation.escalations")) {
            counterOf(name);
        }
        for (io.durablecheckout.api.values.Step step : io.durablecheckout.api.values.Step.values()) {
            for (String name : STEP_COUNTERS) {
                counterOf(name, "step", step.slug());
            }
        }
        counterOf("checkout.finished", "state", "completed", "reason", "none");
        counterOf("checkout.finished", "state", "cancelled", "reason", "none");
        for (io.durablecheckout.api.checkout.CancellationReason reason
                : io.durablecheckout.api.checkout.CancellationReason.values()) {
            counterOf("checkout.finished", "state", "cancelled", "reason", reason.name().toLowerCase());
        }
        for (io.durablecheckout.orchestrator.checkout.CheckoutState state
                : io.durablecheckout.orchestrator.checkout.CheckoutState.values()) {
            if (!state.isTerminal()) {
                stateDuration(state.wireName()); // recorded when a checkout leaves the state: only these are left
            }
        }
    }

    /** The counters tagged by step, one series per step. */
    static final List<String> STEP_COUNTERS = List.of("checkout.leases.granted", "checkout.leases.renewed",
            "checkout.leases.deferred", "checkout.leases.expired", "checkout.fencing.stale.results.rejected",
            "checkout.manual.review");

    @EventHandler
    public void on(CheckoutEvent event, @SequenceNumber long sequence, @Timestamp Instant at, ReplayStatus replay) {
        Applied applied = new Applied(event, sequence, at, replay.isReplay());
        UnitOfWork<?> root = CurrentUnitOfWork.isStarted() ? CurrentUnitOfWork.get().root() : null;
        if (!(root instanceof BatchingUnitOfWork<?> processorBatch)) {
            // One event on its own: a dead letter being retried (its failure must throw here to keep it parked).
            Batch single = new Batch(repository.findForUpdate(Set.of(event.checkoutId().value())));
            single.apply(applied);
            single.write(null);
            return;
        }
        Batch batch = root.getOrComputeResource(BATCH, key -> {
            Batch b = new Batch(repository.findForUpdate(checkoutIds(processorBatch)));
            root.onPrepareCommit(b::write);
            return b;
        });
        // Folded now, inside the dead-letter invoker: an event that cannot be folded parks its checkout only.
        batch.apply(applied);
    }

    /** A rebuild starts from an empty table: the version check would otherwise skip every replayed event. */
    @ResetHandler
    public void onReset() {
        repository.truncate();
    }

    /** Every checkout the processor's batch touches: their rows are locked and loaded with one query. */
    private static Set<String> checkoutIds(BatchingUnitOfWork<?> batch) {
        Set<String> ids = new LinkedHashSet<>();
        for (Object message : batch.getMessages()) {
            if (message instanceof EventMessage<?> m && m.getPayload() instanceof CheckoutEvent e) {
                ids.add(e.checkoutId().value());
            }
        }
        return ids;
    }

    /** The rows of one batch, folded in memory event by event, written with one upsert when the batch commits. */
    private final class Batch {
        private final Map<String, CheckoutView> views;
        private final Map<String, CheckoutView> changed = new LinkedHashMap<>();
        private final Map<String, List<Applied>> folded = new HashMap<>();
        private final List<Counted> toCount = new ArrayList<>();
        private final List<StateLeft> left = new ArrayList<>();

        Batch(Map<String, CheckoutView> views) {
            this.views = views;
        }

        void apply(Applied e) {
            String id = e.event.checkoutId().value();
            CheckoutView current = views.get(id);
            if (current != null && current.version >= e.sequence) {
                return;
            }
            String before = current == null ? null : current.state;
            Instant since = current == null ? null : current.stateSince; // fold mutates the view: read it first
            CheckoutView next;
            try {
                next = CheckoutViewFolder.fold(current, e.event, e.sequence, e.at);
            } catch (RuntimeException failure) {
                // The fold works in place and may have stopped half-way: put back the row as stored plus this
                // batch's earlier events of the checkout, then let the failure park this event.
                CheckoutView restored = repository.findForUpdate(Set.of(id)).get(id);
                for (Applied earlier : folded.getOrDefault(id, List.of())) {
                    restored = CheckoutViewFolder.fold(restored, earlier.event, earlier.sequence, earlier.at);
                }
                if (restored == null) {
                    views.remove(id);
                    changed.remove(id);
                } else {
                    views.put(id, restored);
                    if (changed.containsKey(id)) {
                        changed.put(id, restored);
                    }
                }
                throw failure;
            }
            views.put(id, next);
            changed.put(id, next);
            folded.computeIfAbsent(id, k -> new ArrayList<>()).add(e);
            if (!e.replay) {
                toCount.add(new Counted(e.event, current != null && current.completedAt != null));
                if (before != null && since != null && !before.equals(next.state)) {
                    left.add(new StateLeft(before, Duration.between(since, e.at)));
                }
            }
        }

        void write(UnitOfWork<?> unitOfWork) {
            repository.upsertAll(changed.values());
            Runnable record = () -> {
                toCount.forEach(c -> count(c.event, c.afterCompletion));
                left.forEach(l -> stateDuration(l.state).record(l.time));
            };
            if (unitOfWork == null) {
                record.run();
            } else if (!toCount.isEmpty()) {
                unitOfWork.afterCommit(u -> record.run()); // a rolled-back batch is re-run: count once
            }
        }
    }

    private record StateLeft(String state, Duration time) {
    }

    /** An event to count, and whether its checkout had completed before it (a refund then is no second finish). */
    private record Counted(CheckoutEvent event, boolean afterCompletion) {
    }

    private void count(CheckoutEvent event, boolean afterCompletion) {
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
        } else if (event instanceof ActivityLeaseDeferredEvent e) {
            counter("checkout.leases.deferred", "step", e.step().slug());
        } else if (event instanceof ActivityLeaseExpiredEvent e) {
            counter("checkout.leases.expired", "step", e.step().slug());
        } else if (event instanceof ActivityResultRejectedEvent e) {
            counter("checkout.fencing.stale.results.rejected", "step", e.step().slug());
        } else if (event instanceof CheckoutCompletedEvent) {
            // the same tag keys as a cancellation's: Prometheus refuses a second key set under one name
            counter("checkout.finished", "state", "completed", "reason", "none");
        } else if (event instanceof CheckoutCancelledEvent e && !afterCompletion) {
            counter("checkout.finished", "state", "cancelled", "reason",
                    e.reason() == null ? "none" : e.reason().name().toLowerCase());
        } else if (event instanceof PaymentRefundedEvent) {
            // only a completed checkout is refunded; it finished once, at completion (started - finished = in flight)
            counter("checkout.refunds");
        } else if (event instanceof ManualReviewRequiredEvent e) {
            counter("checkout.manual.review", "step", e.blockedStep().slug());
            if (e.blockedStep() == io.durablecheckout.api.values.Step.RECONCILE_PAYMENT) {
                counter("checkout.reconciliation.escalations"); // the lookups ran out: an operator decides
            }
        }
    }

    /** Held per state like the counters: a registry lookup per record showed in the profile (decision 55). */
    private Timer stateDuration(String state) {
        return stateDurations.computeIfAbsent(state, s -> Timer.builder("checkout.state.duration").tag("state", s)
                .description("time a checkout spent in a state, recorded when it leaves it")
                .register(meters));
    }

    private void counter(String name, String... tags) {
        counterOf(name, tags).increment();
    }

    private Counter counterOf(String name, String... tags) {
        List<String> key = new ArrayList<>(tags.length + 1);
        key.add(name);
        key.addAll(List.of(tags));
        return counters.computeIfAbsent(key, k -> meters.counter(name, tags));
    }

    private record Applied(CheckoutEvent event, long sequence, Instant at, boolean replay) {
    }
}
