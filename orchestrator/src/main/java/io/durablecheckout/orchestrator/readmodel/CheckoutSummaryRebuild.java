package io.durablecheckout.orchestrator.readmodel;

import io.durablecheckout.api.checkout.CheckoutEvent;
import org.axonframework.common.DateTimeUtils;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedType;
import io.durablecheckout.orchestrator.serialization.EventUpcasters;
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
 * projection's version rule, writes the rows in chunks into a shadow table, swaps it in for checkout_summary and sets
 * the processor's token to the snapshot's position, all in one transaction. Events committed after the snapshot are
 * left to the processor. Reads go on against the current table while the shadow table fills (they see the read model
 * as it was when the rebuild began); only the swap at the end takes checkout_summary's exclusive lock, for the
 * milliseconds of two renames and a drop before the commit.
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

    /** For tests: runs inside the rebuild's transaction once the shadow table is filled, before the swap. */
    private volatile Runnable beforeSwap = () -> {
    };

    public void beforeSwap(Runnable hook) {
        this.beforeSwap = hook == null ? () -> {
        } : hook;
    }

    /** Stops this node's processor for the duration (another node holding the segment makes the token update fail). */
    public synchronized Result rebuild() {
        StreamingEventProcessor processor = processing.eventProcessor(CheckoutSummaryProjection.PROCESSOR,
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
        // one rebuild at a time across nodes; the shadow table is created and dropped inside this transaction, so a
        // crashed rebuild leaves nothing behind
        jdbc.execute("SELECT pg_advisory_xact_lock(hashtext('" + CheckoutSummaryRepository.SHADOW_TABLE + "'))");
        jdbc.execute("CREATE TABLE " + CheckoutSummaryRepository.SHADOW_TABLE + " (LIKE "
                + CheckoutSummaryRepository.TABLE + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
        jdbc.execute("ALTER TABLE " + CheckoutSummaryRepository.SHADOW_TABLE
                + " ADD CONSTRAINT " + SHADOW_PREFIX + "pkey PRIMARY KEY (checkout_id)");
        // every other index of the live table (whatever later migrations added), rebuilt after the load
        List<String[]> indexes = jdbc.query("""
                SELECT indexname, indexdef FROM pg_indexes
                WHERE schemaname = current_schema() AND tablename = ? AND indexname <> 'checkout_summary_pkey'""",
                (rs, n) -> new String[]{rs.getString(1), rs.getString(2)}, CheckoutSummaryRepository.TABLE);
        // walk the (aggregate, sequence) index rather than sort the store first: rows flow at once, and the database
        // reads while this folds (of the hot table and the retention archive, merged: decisions.md §127)
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
                FROM domain_events_all ORDER BY aggregateidentifier, sequencenumber""", rs -> {
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
        repository.upsertAll(CheckoutSummaryRepository.SHADOW_TABLE, chunk);
        // indexes after the load (faster than maintaining them row by row), then the swap
        for (String[] index : indexes) {
            jdbc.execute(index[1]
                    .replaceFirst("INDEX " + index[0] + " ON ", "INDEX " + shadowName(index[0]) + " ON ")
                    .replaceFirst(" ON (\\S+\\.)?" + CheckoutSummaryRepository.TABLE + " ",
                            " ON " + CheckoutSummaryRepository.SHADOW_TABLE + " "));
        }
        jdbc.execute("ANALYZE " + CheckoutSummaryRepository.SHADOW_TABLE);
        beforeSwap.run();
        swap(indexes);

        if (head >= 0) {
            GapAwareTrackingToken token = GapAwareTrackingToken.newInstance(head, gaps);
            String name = CheckoutSummaryProjection.PROCESSOR;
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

    private static final String SHADOW_PREFIX = "rebuild_";

    private static String shadowName(String index) {
        String name = SHADOW_PREFIX + index;
        return name.length() <= 63 ? name : name.substring(0, 63);
    }

    /** The shadow table becomes checkout_summary, under the names the migrations gave the original's indexes. */
    private void swap(List<String[]> indexes) {
        // Waiting for the lock queues new reads behind this transaction: bounded, the rebuild fails rather than
        // stall reads (an operator runs it again).
        jdbc.execute("SET LOCAL lock_timeout = '5s'");
        // the live table's own triggers (the dashboard's state counts), recreated on the new table under their names
        List<String> triggers = jdbc.queryForList("SELECT pg_get_triggerdef(oid) FROM pg_trigger"
                + " WHERE tgrelid = to_regclass(?) AND NOT tgisinternal ORDER BY tgname", String.class,
                CheckoutSummaryRepository.TABLE);
        jdbc.execute("DROP TABLE " + CheckoutSummaryRepository.TABLE);
        jdbc.execute("ALTER TABLE " + CheckoutSummaryRepository.SHADOW_TABLE + " RENAME TO "
                + CheckoutSummaryRepository.TABLE);
        jdbc.execute("ALTER TABLE " + CheckoutSummaryRepository.TABLE + " RENAME CONSTRAINT " + SHADOW_PREFIX
                + "pkey TO checkout_summary_pkey");
        for (String[] index : indexes) {
            jdbc.execute("ALTER INDEX " + shadowName(index[0]) + " RENAME TO " + index[0]);
        }
        triggers.forEach(jdbc::execute);
        // What those triggers keep was kept for the old rows: count the new ones (the shadow table had no triggers).
        if (jdbc.queryForObject("SELECT to_regclass('checkout_state_counts') IS NOT NULL", Boolean.class)) {
            jdbc.execute("DELETE FROM checkout_state_counts");
            jdbc.execute("INSERT INTO checkout_state_counts (tenant_id, state, n)"
                    + " SELECT tenant_id, state, count(*) FROM " + CheckoutSummaryRepository.TABLE + " GROUP BY 1, 2");
        }
    }

    private void add(List<CheckoutView> chunk, CheckoutView view) {
        chunk.add(view);
        if (chunk.size() == CHUNK) {
            repository.upsertAll(CheckoutSummaryRepository.SHADOW_TABLE, chunk);
            chunk.clear();
        }
    }
}
