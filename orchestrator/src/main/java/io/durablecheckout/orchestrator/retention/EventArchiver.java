package io.durablecheckout.orchestrator.retention;

import io.durablecheckout.orchestrator.axon.eventstore.EventsOnlyStorageEngine;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventhandling.WrappedToken;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Moves finished checkouts' events from the hot event table to {@value EventsOnlyStorageEngine#ARCHIVE_TABLE}, a batch
 * of checkouts per transaction, and records each in {@code archived_checkouts} in the same transaction (the guard of
 * decision 5's idempotency, V194_140). A checkout moves only when all of these hold (decisions.md §127–129):
 * <ul>
 * <li>the read model has it completed or cancelled (not in manual review) at its last event, and that event is older
 * than its tenant's retention and never younger than the chargeback window;</li>
 * <li>every one of its events lies below every event processor's position less a margin, and in no token's gaps
 * ({@link #horizon}): no processor has still to read it;</li>
 * <li>no deadline is pending for it, no processor has parked one of its events, and its saga has ended.</li>
 * </ul>
 * A command, notification or retried submission for a moved checkout still finds its events: the event store reads
 * both tables.
 */
public final class EventArchiver {

    private static final Logger log = LoggerFactory.getLogger(EventArchiver.class);

    private static final String HOT = "domainevententry";
    private static final String COLUMNS = "globalindex, aggregateidentifier, sequencenumber, type, eventidentifier, "
            + "metadata, payload, payloadrevision, payloadtype, timestamp";
    private static final List<String> FINISHED = List.of("completed", "cancelled");

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Serializer serializer;
    private final RetentionProperties settings;

    public EventArchiver(JdbcTemplate jdbc, TransactionTemplate transactions, Serializer serializer,
                         RetentionProperties settings) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.serializer = serializer;
        this.settings = settings;
    }

    /**
     * What one run did.
     *
     * @param checkouts moved
     * @param events    moved
     * @param skipped   due by age but kept (a processor, a deadline, a parked event or the read model not there yet)
     * @param safeBelow the global index every moved event lay below, outside the tokens' gaps ({@link Long#MIN_VALUE}:
     *                  none could move)
     * @param note      why nothing could move, or why checkouts due were kept (count by reason), or null
     */
    public record Result(int checkouts, int events, int skipped, long safeBelow, String note) {
    }

    /** One run over every tenant, as the recurring task makes it. */
    public Result archive(Instant now) {
        return archive(now, null);
    }

    /**
     * Moves every due checkout of {@code tenant} (every tenant if null), at most {@code max-batches} batches.
     *
     * @param now the time retention is measured from
     */
    public Result archive(Instant now, String tenant) {
        List<Map<String, Object>> tenants = tenant == null
                ? jdbc.queryForList("SELECT tenant_id, event_retention_days FROM tenants ORDER BY tenant_id")
                : jdbc.queryForList("SELECT tenant_id, event_retention_days FROM tenants WHERE tenant_id = ?", tenant);
        int[] totals = new int[3];
        int batches = 0;
        long below = Long.MIN_VALUE;
        Map<String, Integer> reasons = new java.util.TreeMap<>();
        for (Map<String, Object> t : tenants) {
            Instant cutoff = now.minus(retentionOf((Number) t.get("event_retention_days")));
            for (String state : FINISHED) {
                Cursor cursor = new Cursor(Instant.EPOCH, "");
                while (cursor != null && batches < settings.maxBatches()) {
                    Cursor from = cursor;
                    Batch batch = transactions.execute(tx -> moveBatch((String) t.get("tenant_id"), state, cutoff,
                            from, reasons));
                    if (batch.horizon().below() == Long.MIN_VALUE) {
                        return new Result(0, 0, 0, Long.MIN_VALUE, "no processor position (a segment without a "
                                + "token, an unreadable token, or none at all): nothing moves");
                    }
                    below = batch.horizon().below();
                    batches += batch.due() > 0 ? 1 : 0;
                    totals[0] += batch.checkouts();
                    totals[1] += batch.events();
                    totals[2] += batch.skipped();
                    cursor = batch.next();
                }
            }
        }
        if (totals[0] > 0 || totals[2] > 0) {
            log.info("Retention: {} checkouts ({} events) moved to the archive, {} due but kept {}, in {} batches",
                    totals[0], totals[1], totals[2], reasons, batches);
        }
        return new Result(totals[0], totals[1], totals[2], below, reasons.isEmpty() ? null : "kept: " + reasons);
    }

    /** A tenant's retention after a checkout's last event: its own or the default, at least the chargeback window. */
    Duration retentionOf(Number tenantDays) {
        return settings.retentionOf(tenantDays);
    }

    private record Cursor(Instant updatedAt, String checkoutId) {
    }

    private record Batch(Horizon horizon, int due, int checkouts, int events, int skipped, Cursor next) {
    }

    private Batch moveBatch(String tenant, String state, Instant cutoff, Cursor from, Map<String, Integer> reasons) {
        // read in the batch's transaction: a position only moves forward, so every event below it stays read
        Horizon horizon;
        try {
            horizon = horizon(tokens(), settings.gapMargin());
        } catch (RuntimeException unreadable) {
            log.warn("Retention: a processor's token is unreadable, nothing moves: {}", unreadable.toString());
            horizon = Horizon.NONE;
        }
        if (horizon.below() == Long.MIN_VALUE) {
            return new Batch(horizon, 0, 0, 0, 0, null);
        }
        // the read model's (tenant, state, updated_at) index, oldest first, from where the last batch stopped
        List<Map<String, Object>> due = jdbc.queryForList("""
                SELECT s.checkout_id, s.version, s.updated_at FROM checkout_summary s
                WHERE s.tenant_id = ? AND s.state = ? AND s.terminal AND s.updated_at < ?
                  AND (s.updated_at, s.checkout_id) > (?, ?)
                  AND NOT EXISTS (SELECT 1 FROM archived_checkouts a
                                  WHERE a.checkout_id = s.checkout_id AND a.last_sequence >= s.version)
                ORDER BY s.updated_at, s.checkout_id LIMIT ?""", tenant, state, Timestamp.from(cutoff),
                Timestamp.from(from.updatedAt()), from.checkoutId(), settings.batchSize());
        int moved = 0;
        int events = 0;
        int skipped = 0;
        for (Map<String, Object> row : due) {
            int n = move((String) row.get("checkout_id"), tenant, ((Number) row.get("version")).longValue(), cutoff,
                    horizon, reasons);
            if (n > 0) {
                moved++;
                events += n;
            } else {
                skipped++;
            }
        }
        Cursor next = null;
        if (due.size() == settings.batchSize()) {
            Map<String, Object> last = due.get(due.size() - 1);
            next = new Cursor(((Timestamp) last.get("updated_at")).toInstant(), (String) last.get("checkout_id"));
        }
        return new Batch(horizon, due.size(), moved, events, skipped, next);
    }

    /** Moves one checkout's hot events, or none (returns 0) when any condition fails. */
    private int move(String checkoutId, String tenant, long version, Instant cutoff, Horizon horizon,
                     Map<String, Integer> reasons) {
        List<Map<String, Object>> hot = jdbc.queryForList("SELECT globalindex, sequencenumber, timestamp FROM " + HOT
                + " WHERE aggregateidentifier = ? AND type = 'Checkout' ORDER BY sequencenumber FOR UPDATE",
                checkoutId);
        if (hot.isEmpty()) {
            return 0;
        }
        Map<String, Object> last = hot.get(hot.size() - 1);
        String kept = ((Number) last.get("sequencenumber")).longValue() != version ? "read model behind"
                : !Instant.parse((String) last.get("timestamp")).isBefore(cutoff) ? "last event too recent"
                : !hot.stream().allMatch(e -> horizon.read(((Number) e.get("globalindex")).longValue()))
                        ? "a processor not past it"
                : count("SELECT count(*) FROM deadletterentry WHERE sequenceidentifier = ?", checkoutId) > 0
                        ? "parked event"
                : count("SELECT count(*) FROM associationvalueentry WHERE associationvalue = ?", checkoutId) > 0
                        ? "saga not ended"
                : count("SELECT count(*) FROM scheduled_tasks WHERE position(convert_to(?, 'UTF8') IN task_data) > 0",
                        checkoutId) > 0 ? "deadline pending" : null;
        if (kept != null) {
            reasons.merge(kept, 1, Integer::sum);
            return 0;
        }
        int n = jdbc.update("WITH moved AS (DELETE FROM " + HOT + " WHERE aggregateidentifier = ? AND type = 'Checkout'"
                + " RETURNING " + COLUMNS + ") INSERT INTO " + EventsOnlyStorageEngine.ARCHIVE_TABLE + " (" + COLUMNS
                + ") SELECT " + COLUMNS + " FROM moved", checkoutId);
        jdbc.update("INSERT INTO archived_checkouts (checkout_id, tenant_id, last_sequence, events) "
                + "VALUES (?, ?, ?, ?) "
                + "ON CONFLICT (checkout_id) DO UPDATE SET last_sequence = EXCLUDED.last_sequence, "
                + "events = archived_checkouts.events + EXCLUDED.events, archived_at = now()",
                checkoutId, tenant, version, n);
        return n;
    }

    private long count(String sql, Object... args) {
        Long n = jdbc.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }

    private List<TrackingToken> tokens() {
        List<TrackingToken> tokens = new ArrayList<>();
        jdbc.query("SELECT token, tokentype FROM tokenentry", rs -> {
            byte[] token = rs.getBytes(1);
            String type = rs.getString(2);
            tokens.add(token == null || type == null ? null
                    : serializer.deserialize(new SimpleSerializedObject<>(token, byte[].class, type, null)));
        });
        return tokens;
    }

    /**
     * Which global indexes every processor has read: those below the least position of any segment less
     * {@code margin}, except any a segment still waits for (its gaps). With a margin of at least Axon's largest gap
     * offset (10,000) no such index can be a gap of any token (Axon drops gaps further behind), nor of the token a
     * read model rebuild computes from the hot table (it looks that far back only). decisions.md §128.
     *
     * @param below every index under it was read, unless in {@code gaps} ({@link Long#MIN_VALUE}: none)
     */
    record Horizon(long below, Set<Long> gaps) {
        static final Horizon NONE = new Horizon(Long.MIN_VALUE, Set.of());

        boolean read(long index) {
            return index < below && !gaps.contains(index);
        }
    }

    /** The horizon of these segments' tokens; {@link Horizon#NONE} when there is none or one has no position. */
    static Horizon horizon(List<TrackingToken> tokens, long margin) {
        if (tokens.isEmpty()) {
            return Horizon.NONE;
        }
        long least = Long.MAX_VALUE;
        Set<Long> gaps = new HashSet<>();
        for (TrackingToken token : tokens) {
            TrackingToken t = token == null ? null : WrappedToken.unwrapLowerBound(token);
            if (t instanceof GapAwareTrackingToken g) {
                gaps.addAll(g.getGaps());
                least = Math.min(least, g.getIndex());
            } else if (t != null && t.position().isPresent()) {
                least = Math.min(least, t.position().getAsLong());
            } else {
                return Horizon.NONE;
            }
        }
        return new Horizon(least + 1 - margin, Set.copyOf(gaps));
    }
}
