package io.durablecheckout.orchestrator.readmodel;

import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.orchestrator.config.EventProcessingConfiguration;
import org.axonframework.common.DateTimeUtils;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedType;
import io.durablecheckout.orchestrator.replay.EventUpcasters;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Operator-triggered rebuild of checkout_summary without the event processor: reads the event store in one snapshot
 * (ordered by checkout, so one view is in memory at a time), folds with {@link CheckoutViewFolder} under the
 * projection's version rule, writes the rows in chunks and sets the processor's token to the snapshot's position, all
 * in one transaction. Events committed after the snapshot are left to the processor.
 * <p>
 * Why not a processor reset: Axon's pooled processor hands a segment at most 1,024 buffered events and its coordinator
 * sleeps 100 ms whenever that buffer is full, which caps a replay near 10,000 events/s however fast the handler is.
 */
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@Component
public class CheckoutSummaryRebuild {

    private static final int CHUNK = 1_000;
    /** JdbcEventStorageEngine's default maxGapOffset: a hole further below the head is never filled. */
    private static final long MAX_GAP_OFFSET = 10_000;

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transaction;
    private final Serializer serializer;
    private final TokenStore tokenStore;
    private final org.axonframework.config.EventProcessingConfiguration processing;
    private final CheckoutSummaryRepository repository;

    public CheckoutSummaryRebuild(JdbcTemplate jdbc, PlatformTransactionManager transactionManager,
                                  @Qualifier("eventSerializer") Serializer serializer, TokenStore tokenStore,
                                  org.axonframework.config.EventProcessingConfiguration processing,
                                  CheckoutSummaryRepository repository) {
        this.jdbc = jdbc;
        this.transaction = new TransactionTemplate(transactionManager);
        this.transaction.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ); // one snapshot
        this.serializer = serializer;
        this.tokenStore = tokenStore;
        this.processing = processing;
        this.repository = repository;
    }

    /** @param events events folded; {@code rows} checkouts written; {@code head} the global index the token is at */
    public record Result(long events, int rows, long head) {
    }

    /** Stops this node's processor for the duration (another node holding the segment makes the token update fail). */
    public synchronized Result rebuild() {
        StreamingEventProcessor processor = processing.eventProcessor(EventProcessingConfiguration.SUMMARY_PROCESSOR,
                StreamingEventProcessor.class).orElseThrow(() -> new IllegalStateException("no summary processor"));
        processor.shutDown();
        try {
            return transaction.execute(status -> rebuildInTransaction());
        } finally {
            processor.start();
        }
    }

    private Result rebuildInTransaction() {
        Long max = jdbc.queryForObject("SELECT max(globalindex) FROM domainevententry", Long.class);
        long head = max == null ? -1 : max;
        TreeSet<Long> gaps = new TreeSet<>();
        long expected = Math.max(1, head - MAX_GAP_OFFSET);
        for (long index : jdbc.queryForList("SELECT globalindex FROM domainevententry WHERE globalindex >= ? "
                + "ORDER BY globalindex", Long.class, expected)) {
            for (; expected < index; expected++) {
                gaps.add(expected);
            }
            expected = index + 1;
        }
        repository.truncate();
        // walk the (aggregate, sequence) index rather than sort the store first: rows flow at once, and the database
        // reads while this folds
        jdbc.execute("SET LOCAL enable_sort = off");

        Map<String, Boolean> checkoutTypes = new HashMap<>();
        List<CheckoutView> chunk = new ArrayList<>(CHUNK);
        long[] events = {0};
        int[] rows = {0};
        CheckoutView[] current = {null};
        JdbcTemplate streaming = new JdbcTemplate(jdbc.getDataSource()); // same transaction, bound to the data source
        streaming.setFetchSize(2_000); // a cursor: the store is never in memory as a whole
        streaming.query("""
                SELECT aggregateidentifier, sequencenumber, timestamp, payloadtype, payloadrevision, payload
                FROM domainevententry ORDER BY aggregateidentifier, sequencenumber""", rs -> {
            String type = rs.getString(4);
            String revision = rs.getString(5);
            if (!checkoutTypes.computeIfAbsent(type + "/" + revision, k -> CheckoutEvent.class.isAssignableFrom(
                    serializer.classForType(new SimpleSerializedType(type, revision))))) {
                return;
            }
            String id = rs.getString(1);
            long sequence = rs.getLong(2);
            CheckoutView view = current[0];
            if (view != null && !id.equals(view.checkoutId)) {
                add(chunk, view);
                rows[0]++;
                view = null;
            }
            if (view != null && view.version >= sequence) {
                return;
            }
            CheckoutEvent event = EventUpcasters.deserialize(serializer, rs.getBytes(6), type, revision);
            Instant at = DateTimeUtils.parseInstant(rs.getString(3));
            current[0] = CheckoutViewFolder.fold(view, event, sequence, at);
            events[0]++;
        });
        if (current[0] != null) {
            add(chunk, current[0]);
            rows[0]++;
        }
        repository.upsertAll(chunk);

        if (head >= 0) {
            GapAwareTrackingToken token = GapAwareTrackingToken.newInstance(head, gaps);
            String name = EventProcessingConfiguration.SUMMARY_PROCESSOR;
            int[] segments = tokenStore.fetchSegments(name);
            if (segments.length == 0) {
                tokenStore.initializeTokenSegments(name, 1, token);
            }
            for (int segment : segments) {
                tokenStore.storeToken(token, name, segment);
                tokenStore.releaseClaim(name, segment);
            }
        }
        return new Result(events[0], rows[0], head);
    }

    private void add(List<CheckoutView> chunk, CheckoutView view) {
        chunk.add(view);
        if (chunk.size() == CHUNK) {
            repository.upsertAll(chunk);
            chunk.clear();
        }
    }
}
