package io.durablecheckout.activities.simulator;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.durablecheckout.activities.payments.ProviderProtocol;
import io.durablecheckout.activities.payments.ProviderProtocol.AuthorizationRequest;
import jakarta.annotation.PreDestroy;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The simulator's durable memory. Every method runs in its own, immediately committed transaction
 * (PROPAGATION_REQUIRES_NEW, or one autocommitted statement), so what the simulator decided survives whatever happens
 * to the HTTP exchange and to any caller's transaction, exactly like a real provider.
 */
@Component
@ConditionalOnProperty(name = "checkout.simulator.enabled", havingValue = "true", matchIfMissing = true)
public class SimulatorLedger {

    /** Enough for the answers in flight at once; a held answer (tok_slow) sleeps without one. */
    private static final int POOL_SIZE = 8;

    private static final RowMapper<Authorization> AUTHORIZATION = (rs, n) -> new Authorization(
            rs.getString("operation_id"), rs.getString("status"), rs.getString("reference"), rs.getString("reason"),
            rs.getBoolean("voided"), rs.getBoolean("refunded"), rs.getInt("refusals"),
            rs.getTimestamp("updated_at").toInstant(), rs.getString("tenant_id"), rs.getLong("amount_minor"),
            rs.getString("currency"), rs.getString("payment_token"), rs.getInt("captures"),
            rs.getInt("capture_requests"), (Long) rs.getObject("captured_minor"));

    /**
     * A first authorization request, logged and decided in one statement: the call log row and the decided row
     * commit together or not at all. Inserts nothing into simulator_authorizations when the operation is already
     * known (the CTE's INSERT into simulator_calls runs either way).
     */
    private static final String LOG_AND_DECIDE = "WITH logged AS (INSERT INTO simulator_calls (action, operation_id,"
            + " idempotency_key) VALUES ('AUTHORIZE', :logOp, :key))"
            + " INSERT INTO simulator_authorizations (operation_id, payment_token, amount_minor, currency, status,"
            + " reference, reason, tenant_id) VALUES (:op, :token, :amount, :currency, :status, :ref, :reason, :tenant)"
            + " ON CONFLICT (operation_id) DO NOTHING RETURNING *";

    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    /** One autocommitted statement, outside any transaction a caller might have bound to the thread. */
    private final TransactionTemplate autocommit;

    /** The simulator's own connections, closed with it (null: it shares the application's, as a test wires it). */
    private final HikariDataSource ownPool;

    public SimulatorLedger(DataSource dataSource, PlatformTransactionManager transactionManager) {
        // A provider outside never waits for the product's connections. Sharing the pool did: each provider call holds
        // one of the product's connections while it waits for the answer, so a pool smaller than the calls in flight
        // left the simulator no connection to answer with, and every call timed out into "unknown" (ScaleOutIT's
        // split deployment, 8 connections, 4 segments' batches and their calls).
        this.ownPool = ownPool(dataSource);
        if (ownPool != null) {
            dataSource = ownPool;
            transactionManager = new DataSourceTransactionManager(ownPool);
        }
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(transactionManager);
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.autocommit = new TransactionTemplate(transactionManager);
        this.autocommit.setPropagationBehavior(TransactionDefinition.PROPAGATION_NOT_SUPPORTED);
    }

    /** A small pool of the simulator's own on the application's database, when that is a Hikari pool. */
    private static HikariDataSource ownPool(DataSource application) {
        try {
            if (!application.isWrapperFor(HikariDataSource.class)) return null;
            HikariConfig config = new HikariConfig();
            application.unwrap(HikariDataSource.class).copyStateTo(config);
            config.setPoolName("simulator");
            config.setMaximumPoolSize(POOL_SIZE);
            config.setMinimumIdle(1);
            config.setMetricsTrackerFactory(null); // the product's metrics are the product's pool
            config.setMetricRegistry(null);
            config.setHealthCheckRegistry(null);
            return new HikariDataSource(config);
        } catch (java.sql.SQLException e) {
            return null;
        }
    }

    @PreDestroy
    void close() {
        if (ownPool != null) ownPool.close();
    }

    /** One authorization as recorded. {@code status} NEW means nothing has been decided (looks up as absent). */
    public record Authorization(String operationId, String status, String reference, String reason, boolean voided,
                                boolean refunded, int refusals, Instant decidedAt, String tenantId,
                                long amountMinor, String currency, String paymentToken, int captures,
                                int captureRequests, Long capturedMinor) {
        boolean decided() {
            return !"NEW".equals(status);
        }
    }

    /** @param fresh true when this request made the decision (false: a duplicate answered from the record) */
    public record AuthorizeResult(boolean refused, boolean fresh, Authorization authorization) {
    }

    /** The recorded answer to a void or refund request. */
    public record CompensationResult(int httpStatus, String status, String reference, String reason) {
    }

    /**
     * The answer to a capture request; {@code capturedMinor} what was taken (CAPTURED only); {@code hold}: answer
     * only after the client's timeout (the capture timeout tokens' first request).
     */
    public record CaptureResult(int httpStatus, String status, String reference, String reason, Long capturedMinor,
                                String currency, boolean hold) {
    }

    /**
     * Logs a request as it arrives, before anything is decided, like a provider's request log: the fault matrix
     * counts effects here (who called about which operation, with which key, when), not in our own tables.
     */
    void logCall(String action, String operationId, String idempotencyKey) {
        transactions.executeWithoutResult(tx -> jdbc.update("INSERT INTO simulator_calls (action, operation_id,"
                        + " idempotency_key) VALUES (:action, :op, :key)",
                new MapSqlParameterSource()
                        .addValue("action", action)
                        .addValue("op", operationId == null ? "" : clip(operationId))
                        .addValue("key", idempotencyKey == null ? null : clip(idempotencyKey))));
    }

    private static String clip(String s) {
        return s.length() <= 255 ? s : s.substring(0, 255);
    }

    /**
     * Logs an authorization request and decides it. The common case, an operation never seen, is one autocommitted
     * statement (one commit instead of the two of {@link #logCall} then {@link #authorize}): the decision is still
     * durable before the answer, and the log still has every request, since a decision is never recorded without its
     * log row. If that statement fails, the call is logged on its own before the error goes back (a request that
     * reached the provider is always counted). Known operations and {@code tok_provider_down} (whose refusals must not
     * decide) take the locking path.
     */
    AuthorizeResult logAndAuthorize(AuthorizationRequest request, String idempotencyKey, PaymentTokenBehaviour behaviour,
                                    int downForAttempts) {
        if (behaviour == PaymentTokenBehaviour.PROVIDER_DOWN) {
            logCall("AUTHORIZE", request.operationId(), idempotencyKey);
            return authorize(request, behaviour, downForAttempts);
        }
        List<Authorization> decided;
        try {
            decided = autocommit.execute(tx -> jdbc.query(LOG_AND_DECIDE, new MapSqlParameterSource()
                            .addValue("logOp", clip(request.operationId()))
                            .addValue("key", idempotencyKey == null ? null : clip(idempotencyKey))
                            .addValue("op", request.operationId())
                            .addValue("token", request.paymentToken() == null ? "" : request.paymentToken())
                            .addValue("amount", request.amountMinor())
                            .addValue("currency", request.currency())
                            .addValue("status", behaviour.status)
                            .addValue("ref", reference("SIM-", request.operationId()))
                            .addValue("reason", behaviour.reason)
                            .addValue("tenant", request.tenantId()),
                    AUTHORIZATION));
        } catch (RuntimeException e) {
            try {
                logCall("AUTHORIZE", request.operationId(), idempotencyKey);
            } catch (RuntimeException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            throw e;
        }
        if (decided != null && !decided.isEmpty()) {
            return new AuthorizeResult(false, true, decided.get(0));
        }
        // Already known (a repeat, a refused tok_provider_down, a void that came first): logged above, decide as before.
        return authorize(request, behaviour, downForAttempts);
    }

    AuthorizeResult authorize(AuthorizationRequest request, PaymentTokenBehaviour behaviour, int downForAttempts) {
        return transactions.execute(tx -> {
            Authorization current = lockOrCreate(request.operationId(), request.paymentToken(), request.amountMinor(),
                    request.currency(), request.tenantId());
            if (current.decided()) {
                return new AuthorizeResult(false, false, current);
            }
            if (behaviour == PaymentTokenBehaviour.PROVIDER_DOWN && current.refusals() < downForAttempts) {
                jdbc.update("UPDATE simulator_authorizations SET refusals = refusals + 1, updated_at = now()"
                        + " WHERE operation_id = :op", Map.of("op", request.operationId()));
                return new AuthorizeResult(true, false, current);
            }
            Authorization decided = jdbc.queryForObject("UPDATE simulator_authorizations"
                            + " SET status = :status, reference = :ref, reason = :reason, updated_at = now()"
                            + " WHERE operation_id = :op RETURNING *",
                    new MapSqlParameterSource()
                            .addValue("op", request.operationId())
                            .addValue("status", behaviour.status)
                            .addValue("ref", reference("SIM-", request.operationId()))
                            .addValue("reason", behaviour.reason),
                    AUTHORIZATION);
            return new AuthorizeResult(false, true, decided);
        });
    }

    /**
     * The customer authenticated (3-D Secure): an authorization still waiting for them, and not voided meanwhile, is
     * AUTHORIZED now. Empty when there was nothing to authenticate.
     */
    Optional<Authorization> authenticate(String operationId) {
        return transactions.execute(tx -> jdbc.query("UPDATE simulator_authorizations SET status = 'AUTHORIZED',"
                        + " updated_at = now() WHERE operation_id = :op AND status = 'REQUIRES_ACTION' AND NOT voided"
                        + " RETURNING *", Map.of("op", operationId), AUTHORIZATION).stream().findFirst());
    }

    /** The decided authorization, if any (an undecided NEW row is as good as absent). */
    public Optional<Authorization> find(String operationId) {
        return transactions.execute(tx -> jdbc.query("SELECT * FROM simulator_authorizations WHERE operation_id = :op",
                        Map.of("op", operationId), AUTHORIZATION).stream()
                .filter(Authorization::decided)
                .findFirst());
    }

    /**
     * Voids or refunds {@code authorizationOperationId} once per idempotency key. Voiding an operation never seen
     * records it as declined-and-voided, so a late authorization request cannot succeed after its compensation.
     */
    CompensationResult compensate(String action, String authorizationOperationId, String idempotencyKey,
                                  Long amountMinor, String currency) {
        return transactions.execute(tx -> {
            // Lock the authorization first: concurrent requests with the same key then serialize here.
            Authorization auth = lockOrCreate(authorizationOperationId, "", amountMinor == null ? 0 : amountMinor,
                    currency == null || currency.length() != 3 ? "XXX" : currency, null);
            List<CompensationResult> recorded = jdbc.query("SELECT http_status, status, reference, reason"
                            + " FROM simulator_idempotency WHERE idempotency_key = :key",
                    Map.of("key", idempotencyKey), (rs, n) -> new CompensationResult(rs.getInt("http_status"),
                            rs.getString("status"), rs.getString("reference"), rs.getString("reason")));
            if (!recorded.isEmpty()) {
                return recorded.get(0);
            }
            Long refunded = "VOID".equals(action) ? null : refundable(auth, amountMinor);
            CompensationResult result = "VOID".equals(action) ? voidIt(auth, idempotencyKey)
                    : refundIt(auth, idempotencyKey, refunded);
            jdbc.update("INSERT INTO simulator_idempotency (idempotency_key, action, authorization_operation_id,"
                            + " http_status, status, reference, reason, amount_minor)"
                            + " VALUES (:key, :action, :op, :http, :status, :ref, :reason, :amount)",
                    new MapSqlParameterSource()
                            .addValue("key", idempotencyKey)
                            .addValue("action", action)
                            .addValue("amount", ProviderProtocol.REFUNDED.equals(result.status()) ? refunded : null)
                            .addValue("op", authorizationOperationId)
                            .addValue("http", result.httpStatus())
                            .addValue("status", result.status())
                            .addValue("ref", result.reference())
                            .addValue("reason", result.reason()));
            return result;
        });
    }

    /**
     * Captures {@code authorizationOperationId} once per idempotency key and at most once at all: a repeated key
     * answers its recorded result (never a second capture), another key after a capture is REJECTED, as is a capture
     * of a voided, declined or refunded authorization or above the authorized amount. Nothing is created for an
     * authorization never seen. The capture timeout tokens' first request is held past the client's timeout:
     * {@code tok_capture_timeout_done} captures first, {@code tok_capture_timeout_lost} records nothing.
     */
    CaptureResult capture(String authorizationOperationId, String idempotencyKey, Long amountMinor, String currency) {
        return transactions.execute(tx -> {
            List<Authorization> found = jdbc.query("SELECT * FROM simulator_authorizations WHERE operation_id = :op"
                    + " FOR UPDATE", Map.of("op", authorizationOperationId), AUTHORIZATION);
            if (found.isEmpty() || !found.get(0).decided()) {
                return new CaptureResult(409, ProviderProtocol.REJECTED, null, "no authorization "
                        + authorizationOperationId, null, null, false);
            }
            Authorization auth = found.get(0);
            // every capture request for a known authorization, repeats answered from the record included
            jdbc.update("UPDATE simulator_authorizations SET capture_requests = capture_requests + 1,"
                    + " updated_at = now() WHERE operation_id = :op", Map.of("op", authorizationOperationId));
            List<CaptureResult> recorded = jdbc.query("SELECT http_status, status, reference, reason"
                            + " FROM simulator_idempotency WHERE idempotency_key = :key AND action = 'CAPTURE'"
                            + " AND authorization_operation_id = :op",
                    Map.of("key", idempotencyKey, "op", authorizationOperationId),
                    (rs, n) -> {
                        boolean captured = ProviderProtocol.CAPTURED.equals(rs.getString("status"));
                        return new CaptureResult(rs.getInt("http_status"), rs.getString("status"),
                                rs.getString("reference"), rs.getString("reason"),
                                captured ? auth.capturedMinor() : null, captured ? auth.currency() : null, false);
                    });
            if (!recorded.isEmpty()) {
                return recorded.get(0);
            }
            PaymentTokenBehaviour behaviour = PaymentTokenBehaviour.of(auth.paymentToken());
            boolean first = auth.captureRequests() == 0;
            if (first && behaviour.capture == PaymentTokenBehaviour.Capture.TIMEOUT_LOST) {
                // lost on the way: nothing captured, nothing recorded under the key; the next request goes through
                return new CaptureResult(503, "UNAVAILABLE", null, "capture request lost", null, null, true);
            }
            CaptureResult result = captureIt(auth, behaviour, idempotencyKey, amountMinor, currency,
                    first && behaviour.capture == PaymentTokenBehaviour.Capture.TIMEOUT_DONE);
            jdbc.update("INSERT INTO simulator_idempotency (idempotency_key, action, authorization_operation_id,"
                            + " http_status, status, reference, reason)"
                            + " VALUES (:key, 'CAPTURE', :op, :http, :status, :ref, :reason)",
                    new MapSqlParameterSource()
                            .addValue("key", idempotencyKey)
                            .addValue("op", authorizationOperationId)
                            .addValue("http", result.httpStatus())
                            .addValue("status", result.status())
                            .addValue("ref", result.reference())
                            .addValue("reason", result.reason()));
            return result;
        });
    }

    private CaptureResult captureIt(Authorization auth, PaymentTokenBehaviour behaviour, String key, Long amountMinor,
                                    String currency, boolean hold) {
        String refused = auth.voided() ? "authorization voided"
                : !"AUTHORIZED".equals(auth.status()) ? "not capturable: " + auth.status()
                : auth.refunded() ? "authorization refunded"
                : auth.captures() > 0 ? "already captured"
                : currency != null && !currency.equals(auth.currency()) ? "currency differs from the authorized"
                : amountMinor != null && (amountMinor <= 0 || amountMinor > auth.amountMinor())
                ? "amount " + amountMinor + " not within the authorized " + auth.amountMinor()
                : null;
        if (refused != null) {
            return new CaptureResult(409, ProviderProtocol.REJECTED, null, refused, null, null, false);
        }
        if (behaviour.capture == PaymentTokenBehaviour.Capture.DECLINE) {
            return new CaptureResult(200, ProviderProtocol.DECLINED, null, "insufficient funds", null, null, false);
        }
        long captured = amountMinor == null ? auth.amountMinor() : amountMinor;
        jdbc.update("UPDATE simulator_authorizations SET captures = captures + 1, captured_minor = :minor,"
                        + " capture_key = :key, updated_at = now() WHERE operation_id = :op",
                new MapSqlParameterSource().addValue("op", auth.operationId()).addValue("minor", captured)
                        .addValue("key", key));
        return new CaptureResult(200, ProviderProtocol.CAPTURED, reference("SIM-CAPTURE-", key), null, captured,
                auth.currency(), hold);
    }

    private CompensationResult voidIt(Authorization auth, String key) {
        if (auth.refunded()) {
            return new CompensationResult(409, ProviderProtocol.REJECTED, null, "already refunded");
        }
        if (auth.captures() > 0) {
            return new CompensationResult(409, ProviderProtocol.REJECTED, null, "already captured: refund instead");
        }
        if (auth.decided() && !"REQUIRES_ACTION".equals(auth.status())) {
            jdbc.update("UPDATE simulator_authorizations SET voided = TRUE, updated_at = now() WHERE operation_id = :op",
                    Map.of("op", auth.operationId()));
        } else { // never decided, or still waiting for the customer: a late authentication can take nothing now
            jdbc.update("UPDATE simulator_authorizations SET voided = TRUE, status = 'DECLINED', reference = :ref,"
                            + " reason = 'voided before authorization', updated_at = now() WHERE operation_id = :op",
                    Map.of("op", auth.operationId(), "ref", reference("SIM-", auth.operationId())));
        }
        return new CompensationResult(200, ProviderProtocol.VOIDED, reference("SIM-VOID-", key), null);
    }

    /**
     * What a refund of {@code amountMinor} returns ({@code null}: all that remains), or {@code null} when it is not
     * within what the capture took (the authorized amount if nothing was captured) less what was refunded already.
     */
    private Long refundable(Authorization auth, Long amountMinor) {
        long taken = auth.captures() > 0 && auth.capturedMinor() != null ? auth.capturedMinor() : auth.amountMinor();
        Long refunded = jdbc.queryForObject("SELECT refunded_minor FROM simulator_authorizations WHERE operation_id = :op",
                Map.of("op", auth.operationId()), Long.class);
        long remaining = taken - (refunded == null ? 0 : refunded);
        long amount = amountMinor == null ? remaining : amountMinor;
        return amount > 0 && amount <= remaining ? amount : null;
    }

    private CompensationResult refundIt(Authorization auth, String key, Long amountMinor) {
        if (!"AUTHORIZED".equals(auth.status()) || auth.voided()) {
            return new CompensationResult(409, ProviderProtocol.REJECTED, null,
                    "not refundable: " + (auth.voided() ? "voided" : auth.status()));
        }
        if (amountMinor == null) {
            return new CompensationResult(409, ProviderProtocol.REJECTED, null,
                    "amount not within what was captured and not refunded yet");
        }
        jdbc.update("UPDATE simulator_authorizations SET refunded = TRUE, refunded_minor = refunded_minor + :amount,"
                        + " updated_at = now() WHERE operation_id = :op",
                Map.of("op", auth.operationId(), "amount", amountMinor));
        return new CompensationResult(200, ProviderProtocol.REFUNDED, reference("SIM-REFUND-", key), null);
    }

    private Authorization lockOrCreate(String operationId, String paymentToken, long amountMinor, String currency,
                                       String tenantId) {
        jdbc.update("INSERT INTO simulator_authorizations (operation_id, payment_token, amount_minor, currency, status,"
                        + " tenant_id) VALUES (:op, :token, :amount, :currency, 'NEW', :tenant)"
                        + " ON CONFLICT (operation_id) DO NOTHING",
                new MapSqlParameterSource()
                        .addValue("tenant", tenantId)
                        .addValue("op", operationId)
                        .addValue("token", paymentToken == null ? "" : paymentToken)
                        .addValue("amount", amountMinor)
                        .addValue("currency", currency));
        return jdbc.queryForObject("SELECT * FROM simulator_authorizations WHERE operation_id = :op FOR UPDATE",
                Map.of("op", operationId), AUTHORIZATION);
    }

    /** Deterministic provider reference: the same operation always gets the same reference. */
    static String reference(String prefix, String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return prefix + HexFormat.of().withUpperCase().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
