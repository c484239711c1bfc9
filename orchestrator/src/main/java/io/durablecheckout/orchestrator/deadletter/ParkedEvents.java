package io.durablecheckout.orchestrator.deadletter;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryProjection;
import io.durablecheckout.orchestrator.saga.CheckoutSaga;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.eventhandling.deadletter.jdbc.JdbcSequencedDeadLetterQueue;
import org.axonframework.messaging.deadletter.Decisions;
import org.axonframework.messaging.deadletter.EnqueueDecision;
import org.axonframework.messaging.deadletter.ThrowableCause;
import org.springframework.beans.factory.annotation.Qualifier;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.deadletter.DeadLetter;
import org.axonframework.messaging.deadletter.SequencedDeadLetterProcessor;
import org.axonframework.messaging.deadletter.SequencedDeadLetterQueue;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The poison events the processors parked (Axon's JDBC sequenced dead-letter queue, table {@code deadletterentry}),
 * one sequence per processor and checkout: what is parked and why, and the operator's two ways out, retry (handle
 * the parked events again, in order, now that the cause is fixed) and evict (give them up).
 * <p>
 * Listing reads the table directly (read-only, paged by SQL); retry and evict go through Axon's queue and
 * dead-letter processor, which claim the sequence so two nodes cannot retry it at once.
 */
@Service
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class ParkedEvents {

    /**
     * The processors whose poison events are parked, per checkout, in the JDBC dead-letter queue: every activity
     * processor and the read model. Not the saga: Axon has no dead-letter queue for sagas (docs/decisions.md); its
     * parked results go to the same table through {@link SagaPoisonHandler}.
     */
    public static final List<String> DEAD_LETTERED = List.of("inventory", "payments", "receipts",
            CheckoutSummaryProjection.PROCESSOR);

    private final JdbcTemplate jdbc;
    private final org.axonframework.config.EventProcessingConfiguration processing;
    private final TransactionManager transactions;
    private final JdbcSequencedDeadLetterQueue<EventMessage<?>> sagaQueue;
    private final CommandGateway commands;
    private final GuardedRetry guarded;

    public ParkedEvents(JdbcTemplate jdbc, org.axonframework.config.EventProcessingConfiguration processing,
                        TransactionManager transactions,
                        @Qualifier("sagaDeadLetterQueue") JdbcSequencedDeadLetterQueue<EventMessage<?>> sagaQueue,
                        CommandGateway commands, GuardedRetry guarded) {
        this.jdbc = jdbc;
        this.processing = processing;
        this.transactions = transactions;
        this.sagaQueue = sagaQueue;
        this.commands = commands;
        this.guarded = guarded;
    }

    /**
     * One checkout's parked events in one processor.
     *
     * @param processor  the processing group that could not handle them
     * @param checkoutId the sequence: the checkout whose events in that processor wait behind the first
     * @param parked     how many of its events are parked (the first failed; the others wait behind it)
     * @param eventType  the first parked event's type
     * @param eventId    the first parked event's id
     * @param cause      why the first one failed (exception type: message)
     * @param since      when the first one was parked
     * @param lastTried  when it was last tried (parked or retried)
     */
    public record Sequence(String processor, String checkoutId, long parked, String eventType, String eventId,
                           String cause, Instant since, Instant lastTried) {
    }

    public List<String> processors() {
        List<String> all = new ArrayList<>(DEAD_LETTERED);
        all.add(CheckoutSaga.PROCESSOR);
        return all;
    }

    /** Parked sequences, oldest first; {@code processor} and {@code checkoutId} narrow it when not null. */
    public List<Sequence> list(String processor, String checkoutId, int limit) {
        StringBuilder sql = new StringBuilder("""
                SELECT d.processinggroup, d.sequenceidentifier, n.parked, d.payloadtype, d.eventidentifier,
                       d.causetype, d.causemessage, d.enqueuedat, d.lasttouched
                FROM deadletterentry d
                JOIN (SELECT processinggroup, sequenceidentifier, min(sequenceindex) AS first, count(*) AS parked
                      FROM deadletterentry GROUP BY processinggroup, sequenceidentifier) n
                  ON n.processinggroup = d.processinggroup AND n.sequenceidentifier = d.sequenceidentifier
                 AND n.first = d.sequenceindex
                WHERE 1 = 1""");
        List<Object> args = new ArrayList<>();
        if (processor != null) {
            sql.append(" AND d.processinggroup = ?");
            args.add(processor);
        }
        if (checkoutId != null) {
            sql.append(" AND d.sequenceidentifier = ?");
            args.add(checkoutId);
        }
        sql.append(" ORDER BY d.enqueuedat, d.processinggroup, d.sequenceidentifier LIMIT ?");
        args.add(limit);
        return jdbc.query(sql.toString(), (rs, i) -> new Sequence(rs.getString(1), rs.getString(2), rs.getLong(3),
                simpleName(rs.getString(4)), rs.getString(5), cause(rs.getString(6), rs.getString(7)),
                instant(rs.getString(8)), instant(rs.getString(9))), args.toArray());
    }

    /** Parked sequences of these checkouts, by checkout id (for the read side: a parked checkout is stuck). */
    public Map<String, List<Sequence>> forCheckouts(Collection<String> checkoutIds) {
        Map<String, List<Sequence>> byCheckout = new LinkedHashMap<>();
        if (checkoutIds.isEmpty() || !anyParked()) {
            return byCheckout;
        }
        for (String id : checkoutIds) {
            List<Sequence> parked = list(null, id, processors().size());
            if (!parked.isEmpty()) {
                byCheckout.put(id, parked);
            }
        }
        return byCheckout;
    }

    private boolean anyParked() {
        return Boolean.TRUE.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM deadletterentry)", Boolean.class));
    }

    /**
     * Handles the checkout's parked events in {@code processor} again, in order, each in its own transaction; stops
     * at the first that fails again (it stays parked with the new cause, the rest behind it).
     *
     * @return whether every parked event of the sequence was handled; empty if nothing is parked for it
     */
    public Optional<Boolean> retry(String processor, String checkoutId) {
        if (list(processor, checkoutId, 1).isEmpty()) {
            return Optional.empty();
        }
        if (CheckoutSaga.PROCESSOR.equals(processor)) {
            // the saga's letters are routed again exactly as the saga routes them (SagaPoisonHandler)
            return Optional.of(sagaQueue.process(letter -> checkoutId.equals(checkoutOf(letter)), this::route));
        }
        SequencedDeadLetterProcessor<EventMessage<?>> letters = processing.sequencedDeadLetterProcessor(processor)
                .orElseThrow(() -> new IllegalStateException("no dead-letter processor for " + processor));
        // guarded: the retry's transaction also requeues a letter that fails again, so one intent must not abort it
        return Optional.of(guarded.run(() -> letters.process(letter -> checkoutId.equals(checkoutOf(letter)))));
    }

    /** Gives up the checkout's parked events in {@code processor}: they are removed and never handled. */
    public int evict(String processor, String checkoutId) {
        SequencedDeadLetterQueue<EventMessage<?>> queue = CheckoutSaga.PROCESSOR.equals(processor)
                ? sagaQueue
                : processing.deadLetterQueue(processor)
                        .orElseThrow(() -> new IllegalStateException("no dead-letter queue for " + processor));
        return transactions.fetchInTransaction(() -> {
            int evicted = 0;
            for (DeadLetter<? extends EventMessage<?>> letter : queue.deadLetterSequence(checkoutId)) {
                queue.evict(letter);
                evicted++;
            }
            return evicted;
        });
    }

    private EnqueueDecision<EventMessage<?>> route(DeadLetter<? extends EventMessage<?>> letter) {
        EventMessage<?> message = letter.message();
        try {
            if (message.getPayload() instanceof ActivityResultEvent result) {
                commands.sendAndWait(new RecordActivityResultCommand(result.checkoutId(), result,
                        message.getTimestamp()));
            } else if (message.getPayload() instanceof ActivityHeartbeatEvent beat) {
                commands.sendAndWait(new RenewLeaseCommand(beat.checkoutId(), beat, message.getTimestamp()));
            }
            return Decisions.evict();
        } catch (RuntimeException e) {
            return Decisions.requeue(new ThrowableCause(e.getClass().getName(), PoisonEventPolicy.describe(e)));
        }
    }

    private static String checkoutOf(DeadLetter<? extends EventMessage<?>> letter) {
        EventMessage<?> message = letter.message();
        if (message instanceof DomainEventMessage<?> domain) {
            return domain.getAggregateIdentifier();
        }
        Object payload = message.getPayload();
        if (payload instanceof CheckoutEvent e) {
            return e.checkoutId().value();
        }
        if (payload instanceof ActivityResultEvent r) {
            return r.checkoutId().value();
        }
        return payload instanceof ActivityHeartbeatEvent h ? h.checkoutId().value() : null;
    }

    private static String cause(String type, String message) {
        if (type == null) {
            return message;
        }
        return simpleName(type) + (message == null ? "" : ": " + message);
    }

    private static String simpleName(String type) {
        return type == null ? null : type.substring(type.lastIndexOf('.') + 1);
    }

    private static Instant instant(String iso) {
        return iso == null ? null : Instant.parse(iso);
    }
}
