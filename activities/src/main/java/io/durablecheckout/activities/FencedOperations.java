package io.durablecheckout.activities;

import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The one implementation of "claim an operation row for a presented fencing token" that every activity table
 * uses. The claim is a single upsert, so the check and the write are atomic and the row lock it takes serializes
 * concurrent owners of the same operation until the caller's transaction ends:
 * <pre>
 * INSERT INTO ops(...) VALUES (..., 'STARTED')
 * ON CONFLICT (operation_id) DO UPDATE SET fencing_token = EXCLUDED.fencing_token, updated_at = now()
 *   WHERE ops.fencing_token &lt;= EXCLUDED.fencing_token
 * RETURNING *
 * </pre>
 * No row back means the presented token is older than the newest the table accepted: the caller must not perform
 * the effect. An equal token is accepted, because a duplicate delivery of the same intent must see the recorded
 * outcome. Must run inside the caller's transaction.
 */
public final class FencedOperations {

    private final NamedParameterJdbcTemplate jdbc;
    private final String table;

    public FencedOperations(NamedParameterJdbcTemplate jdbc, String table) {
        this.jdbc = Objects.requireNonNull(jdbc);
        this.table = Objects.requireNonNull(table);
    }

    /**
     * @param columns values for a fresh row; must contain {@code operation_id}, {@code kind} and
     *                {@code fencing_token}; {@code status} defaults to STARTED. Only the token of an existing row
     *                changes.
     */
    public Claim claim(Map<String, Object> columns) {
        Map<String, Object> values = new LinkedHashMap<>(columns);
        values.putIfAbsent("status", "STARTED");
        for (String required : List.of("operation_id", "kind", "fencing_token")) {
            if (!values.containsKey(required)) throw new IllegalArgumentException("missing column " + required);
        }
        for (String id : List.of("operation_id", "checkout_id", "authorization_operation_id", "reservation_operation_id")) {
            if (values.get(id) instanceof String value) Bounds.require(id, value, Bounds.ID);
        }
        if (values.get("tenant_id") instanceof String tenant) Bounds.require("tenant_id", tenant, Bounds.TENANT);
        // Column names come from the resources' own constants, never from input.
        String names = String.join(", ", values.keySet());
        String params = values.keySet().stream().map(c -> ":" + c).collect(Collectors.joining(", "));
        String sql = "INSERT INTO " + table + " (" + names + ") VALUES (" + params + ")"
                + " ON CONFLICT (operation_id) DO UPDATE SET fencing_token = EXCLUDED.fencing_token, updated_at = now()"
                + " WHERE " + table + ".fencing_token <= EXCLUDED.fencing_token"
                + " RETURNING *";
        List<Map<String, Object>> rows = jdbc.queryForList(sql, new MapSqlParameterSource(values));
        String operationId = (String) values.get("operation_id");
        if (rows.isEmpty()) {
            // The failed conditional update still locked the row, so this read is the token that beat us.
            Long highest = jdbc.queryForObject(
                    "SELECT fencing_token FROM " + table + " WHERE operation_id = :id",
                    Map.of("id", operationId), Long.class);
            return new Claim(null, new FencingToken(Objects.requireNonNull(highest)));
        }
        Map<String, Object> row = rows.get(0);
        if (!values.get("kind").equals(row.get("kind"))) {
            throw new IllegalStateException("operation " + operationId + " is a " + row.get("kind")
                    + " in " + table + ", not a " + values.get("kind"));
        }
        return new Claim(row, new FencingToken(((Number) row.get("fencing_token")).longValue()));
    }

    public static Map<String, Object> baseColumns(OperationId operationId, String kind, String checkoutId,
                                                  String tenantId, FencingToken token) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("operation_id", operationId.value());
        values.put("kind", kind);
        values.put("checkout_id", checkoutId);
        values.put("tenant_id", tenantId);
        values.put("fencing_token", token.value());
        return values;
    }

    /**
     * @param row             the operation row as it is now (locked by this transaction), or null when stale
     * @param highestAccepted the newest token the table accepted for this operation
     */
    public record Claim(Map<String, Object> row, FencingToken highestAccepted) {

        public boolean stale() {
            return row == null;
        }

        public String status() {
            return row == null ? null : (String) row.get("status");
        }

        public String string(String column) {
            Object value = row == null ? null : row.get(column);
            return value == null ? null : value.toString().trim();
        }

        /** The same claim as if no outcome had been recorded for it (a fault-matrix mutant only). */
        public Claim withoutRecordedOutcome() {
            if (row == null) {
                return this;
            }
            Map<String, Object> forgotten = new java.util.HashMap<>(row);
            forgotten.put("status", "STARTED");
            forgotten.put("answered_token", null);
            return new Claim(forgotten, highestAccepted);
        }
    }
}
