package io.durablecheckout.orchestrator.readmodel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The checkout_summary table: one JSONB view per checkout plus the columns operators filter on. */
@Repository
public class CheckoutSummaryRepository {

    private static final ObjectMapper JSON = new ObjectMapper()
            .registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final JdbcTemplate jdbc;

    public CheckoutSummaryRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Locks and loads the rows of one batch (inside the projection's transaction) so two segments or nodes cannot
     * interleave on them; in key order, so two such batches cannot deadlock.
     */
    public Map<String, CheckoutView> findForUpdate(Collection<String> checkoutIds) {
        Map<String, CheckoutView> views = new HashMap<>();
        jdbc.query("SELECT checkout_id, view FROM checkout_summary WHERE checkout_id = ANY(?) ORDER BY checkout_id "
                        + "FOR UPDATE", rs -> {
                    views.put(rs.getString(1), read(rs.getString(2)));
                }, (Object) checkoutIds.toArray(String[]::new));
        return views;
    }

    public Optional<CheckoutView> find(String tenantId, String checkoutId) {
        return jdbc.query("SELECT view FROM checkout_summary WHERE checkout_id = ? AND tenant_id = ?",
                (rs, i) -> read(rs.getString(1)), checkoutId, tenantId).stream().findFirst();
    }

    public Optional<CheckoutView> findAnyTenant(String checkoutId) {
        return jdbc.query("SELECT view FROM checkout_summary WHERE checkout_id = ?",
                (rs, i) -> read(rs.getString(1)), checkoutId).stream().findFirst();
    }

    /** Newest first; {@code state} null for all; {@code waitingOnly} hides terminal checkouts. */
    public List<CheckoutView> list(String tenantId, String state, boolean waitingOnly, int limit) {
        StringBuilder sql = new StringBuilder("SELECT view FROM checkout_summary WHERE 1 = 1");
        List<Object> args = new java.util.ArrayList<>();
        if (tenantId != null) {
            sql.append(" AND tenant_id = ?");
            args.add(tenantId);
        }
        if (state != null) {
            sql.append(" AND state = ?");
            args.add(state);
        }
        if (waitingOnly) {
            sql.append(" AND NOT terminal");
        }
        sql.append(" ORDER BY updated_at DESC LIMIT ?");
        args.add(limit);
        return jdbc.query(sql.toString(), (rs, i) -> read(rs.getString(1)), args.toArray());
    }

    /** One statement for any number of rows (arrays unnested), so a batch costs one round trip. */
    public void upsertAll(Collection<CheckoutView> views) {
        upsertAll(TABLE, views);
    }

    public static final String TABLE = "checkout_summary";
    /** Where {@link CheckoutSummaryRebuild} builds the next table while reads go on against the current one. */
    public static final String SHADOW_TABLE = "checkout_summary_rebuild";

    /** @param table {@link #TABLE} or {@link #SHADOW_TABLE}, never input */
    void upsertAll(String table, Collection<CheckoutView> views) {
        if (!TABLE.equals(table) && !SHADOW_TABLE.equals(table)) {
            throw new IllegalArgumentException(table);
        }
        if (views.isEmpty()) {
            return;
        }
        int n = views.size();
        String[] ids = new String[n], tenants = new String[n], states = new String[n], reasons = new String[n],
                deadlines = new String[n], since = new String[n], json = new String[n], created = new String[n], updated = new String[n];
        Long[] versions = new Long[n];
        Boolean[] terminal = new Boolean[n];
        int i = 0;
        for (CheckoutView v : views) {
            ids[i] = v.checkoutId;
            tenants[i] = v.tenantId;
            states[i] = v.state;
            versions[i] = v.version;
            terminal[i] = v.terminal;
            reasons[i] = v.waiting == null ? null : v.waiting.reason();
            deadlines[i] = v.waiting == null || v.waiting.nextDeadline() == null ? null
                    : v.waiting.nextDeadline().toString();
            since[i] = v.stateSince == null ? null : v.stateSince.toString();
            json[i] = write(v);
            created[i] = v.createdAt.toString();
            updated[i] = v.updatedAt.toString();
            i++;
        }
        jdbc.update("""
                INSERT INTO %s (checkout_id, tenant_id, state, version, terminal, waiting_reason,
                                next_deadline, view, created_at, updated_at, state_entered_at)
                SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::boolean[], ?::text[],
                                     ?::timestamptz[], ?::jsonb[], ?::timestamptz[], ?::timestamptz[],
                                     ?::timestamptz[])
                ON CONFLICT (checkout_id) DO UPDATE SET state = EXCLUDED.state, version = EXCLUDED.version,
                    terminal = EXCLUDED.terminal, waiting_reason = EXCLUDED.waiting_reason,
                    next_deadline = EXCLUDED.next_deadline, view = EXCLUDED.view, updated_at = EXCLUDED.updated_at,
                    state_entered_at = EXCLUDED.state_entered_at
                """.formatted(table), ids, tenants, states, versions, terminal, reasons, deadlines, json, created, updated,
                since);
    }

    public void truncate() {
        jdbc.execute("TRUNCATE checkout_summary");
    }

    static CheckoutView read(String json) {
        try {
            return JSON.readValue(json, CheckoutView.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("unreadable checkout view: " + e.getMessage(), e);
        }
    }

    static String write(CheckoutView v) {
        try {
            return JSON.writeValueAsString(v);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write checkout view: " + e.getMessage(), e);
        }
    }
}
