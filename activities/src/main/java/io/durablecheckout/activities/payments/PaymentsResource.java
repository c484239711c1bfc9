package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.Bounds;
import io.durablecheckout.activities.privacy.PersonalDataVault;

import io.durablecheckout.activities.FencedOperations;
import io.durablecheckout.activities.Savepoints;
import io.durablecheckout.activities.FencedOperations.Claim;
import io.durablecheckout.activities.payments.PaymentProvider.AuthorizationAnswer;
import io.durablecheckout.activities.payments.PaymentProvider.CaptureAnswer;
import io.durablecheckout.activities.payments.PaymentProvider.CompensationAnswer;
import io.durablecheckout.activities.payments.PaymentProvider.LookupAnswer;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.activities.ResourceMutants;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Payment operations, idempotent by operation id and fenced by token, in {@code payment_operations}. Runs inside the
 * caller's transaction; the provider call happens while this transaction holds the operation row's lock, so a
 * second owner of the same operation waits and then sees the first one's recorded outcome instead of calling too.
 * Even if this transaction rolls back after the call, the provider deduplicates by the operation id.
 */
@Component
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.payments.enabled"}, havingValue = "true",
        matchIfMissing = true) // the service as its own process: docs/scaling.md
public class PaymentsResource {

    public static final String OPERATIONS_TABLE = "payment_operations";

    private final NamedParameterJdbcTemplate jdbc;
    private final FencedOperations operations;
    private final PaymentProvider provider;
    private final ResourceMutants mutants;
    private final Savepoints savepoints;
    private final PersonalDataVault vault;
    /**
     * Authorizations whose decided outcome this process committed (decision 82): the checkout's own
     * PaymentAuthorized/Declined event that follows finds nothing to write (a decided row is never changed), so its
     * statement is skipped. Bounded; a miss (another node, a restart, an evicted entry) only costs the statement.
     */
    private final Set<String> decidedHere = Collections.synchronizedSet(Collections.newSetFromMap(
            new LinkedHashMap<>(256, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > 4_096;
                }
            }));

    @Autowired
    public PaymentsResource(DataSource dataSource, PaymentProvider provider, ResourceMutants mutants,
                            PersonalDataVault vault) {
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.savepoints = new Savepoints(dataSource);
        this.operations = new FencedOperations(jdbc, OPERATIONS_TABLE);
        this.provider = provider;
        this.vault = vault;
        this.mutants = mutants;
    }

    public PaymentsResource(DataSource dataSource, PaymentProvider provider, PersonalDataVault vault) {
        this(dataSource, provider, ResourceMutants.NONE, vault);
    }

    /**
     * Authorizes under {@code operationId} unless an outcome is already recorded. UNKNOWN and FAILED are not
     * terminal: the next owner calls the provider again under the same id and gets its recorded decision.
     * ACTION_REQUIRED (3-D Secure) is not terminal either, but answered from the record with its next action: the
     * customer decides now, and the provider's notification or a lookup records the decision here.
     */
    public AuthorizationOutcome authorize(CheckoutId checkoutId, TenantId tenantId, OperationId operationId,
                                          FencingToken token, Money amount, String paymentToken) {
        return savepoints.run(() -> authorizeOnce(checkoutId, tenantId, operationId, token, amount, paymentToken));
    }

    private AuthorizationOutcome authorizeOnce(CheckoutId checkoutId, TenantId tenantId, OperationId operationId,
                                               FencingToken token, Money amount, String paymentToken) {
        Claim claim = claim(operationId, "AUTHORIZE", checkoutId, tenantId, token, null, amount);
        if (claim.stale()) {
            return AuthorizationOutcome.stale(claim.highestAccepted());
        }
        switch (claim.status()) {
            case "AUTHORIZED":
                return AuthorizationOutcome.of(AuthorizationOutcome.Status.AUTHORIZED,
                        claim.string("provider_reference"), null, true);
            case "DECLINED":
                return AuthorizationOutcome.of(AuthorizationOutcome.Status.DECLINED,
                        claim.string("provider_reference"), claim.string("detail"), true);
            case "ACTION_REQUIRED":
                // the customer acts now; asking the provider again would only repeat its request to them
                return AuthorizationOutcome.actionRequired(claim.string("provider_reference"),
                        claim.string("next_action"), true);
            default:
                break;
        }
        // The token arrives sealed (PersonalDataVault). Erased: the provider is still asked, under the same operation
        // id, with a token that cannot authorize, so it answers with what it recorded earlier, or declines.
        String plainToken = vault.open(checkoutId.value(), PersonalDataVault.PAYMENT_TOKEN, paymentToken)
                .orElse(PersonalDataVault.ERASED);
        AuthorizationAnswer answer = provider.authorize(operationId, amount, plainToken,
                tenantId == null ? null : tenantId.value());
        AuthorizationOutcome.Status status;
        String rowStatus;
        switch (answer.status()) {
            case AUTHORIZED -> {
                status = AuthorizationOutcome.Status.AUTHORIZED;
                rowStatus = "AUTHORIZED";
            }
            case DECLINED -> {
                status = AuthorizationOutcome.Status.DECLINED;
                rowStatus = "DECLINED";
            }
            case PENDING, UNKNOWN -> {
                status = AuthorizationOutcome.Status.UNKNOWN;
                rowStatus = "UNKNOWN";
            }
            case UNAVAILABLE -> {
                status = AuthorizationOutcome.Status.FAILED;
                rowStatus = "FAILED";
            }
            case ACTION_REQUIRED -> {
                // not final: the provider's notification (recordResolution) or a lookup settles the row
                String next = Bounds.require("next_action", answer.nextAction(), Bounds.NEXT_ACTION);
                record(operationId, "ACTION_REQUIRED", answer.reference(), answer.detail());
                jdbc.update("UPDATE payment_operations SET next_action = :next WHERE operation_id = :op",
                        new MapSqlParameterSource().addValue("op", operationId.value()).addValue("next", next));
                return AuthorizationOutcome.actionRequired(answer.reference(), next, false);
            }
            default -> throw new IllegalStateException("unhandled " + answer.status());
        }
        record(operationId, rowStatus, answer.reference(), answer.detail());
        if (status == AuthorizationOutcome.Status.AUTHORIZED || status == AuthorizationOutcome.Status.DECLINED) {
            rememberDecidedOnCommit(operationId);
        }
        return AuthorizationOutcome.of(status, answer.reference(), answer.detail(), false);
    }

    /**
     * Asks the provider about {@code authorizationOperationId}. Every round shares the lookup's operation id but
     * has its own fencing token: a new round asks again (an earlier PENDING must not be replayed for a later round),
     * while the same round delivered again gets its recorded answer. A decided answer is also written to the
     * authorization's own row, so a later authorization intent re-publishes it without calling the provider.
     */
    public LookupResult lookup(CheckoutId checkoutId, TenantId tenantId, OperationId lookupOperationId,
                               FencingToken token, OperationId authorizationOperationId) {
        return savepoints.run(() -> lookupOnce(checkoutId, tenantId, lookupOperationId, token,
                authorizationOperationId));
    }

    private LookupResult lookupOnce(CheckoutId checkoutId, TenantId tenantId, OperationId lookupOperationId,
                                    FencingToken token, OperationId authorizationOperationId) {
        Claim claim = claim(lookupOperationId, "LOOKUP", checkoutId, tenantId, token, authorizationOperationId, null);
        if (claim.stale()) {
            return LookupResult.staleOwner(claim.highestAccepted());
        }
        Object answeredToken = claim.row().get("answered_token");
        if ("ANSWERED".equals(claim.status()) && answeredToken != null
                && ((Number) answeredToken).longValue() == token.value()) {
            PaymentLookupOutcome recorded = PaymentLookupOutcome.valueOf(claim.string("lookup_outcome"));
            String detail = claim.string("detail");
            String prefix = recorded.name() + ": ";
            return LookupResult.replayed(recorded, claim.string("provider_reference"),
                    detail != null && detail.startsWith(prefix) ? detail.substring(prefix.length()) : null);
        }
        LookupAnswer answer = provider.lookup(authorizationOperationId, lookupOperationId);
        record(lookupOperationId, "ANSWERED", answer.reference(),
                answer.outcome() + (answer.detail() == null ? "" : ": " + answer.detail()));
        jdbc.update("UPDATE payment_operations SET lookup_outcome = :outcome, answered_token = :token"
                        + " WHERE operation_id = :op",
                new MapSqlParameterSource()
                        .addValue("op", lookupOperationId.value())
                        .addValue("outcome", answer.outcome().name())
                        .addValue("token", token.value()));
        if (answer.outcome() == PaymentLookupOutcome.AUTHORIZED || answer.outcome() == PaymentLookupOutcome.DECLINED) {
            recordAuthorizationOutcome(authorizationOperationId, answer.outcome().name(), answer.reference(),
                    "reconciled by " + lookupOperationId.value()
                            + (answer.detail() == null ? "" : ": " + answer.detail()));
        }
        return LookupResult.answered(answer.outcome(), answer.reference(), answer.detail());
    }

    public CompensationOutcome voidAuthorization(CheckoutId checkoutId, TenantId tenantId, OperationId voidOperationId,
                                                 FencingToken token, OperationId authorizationOperationId, Money amount) {
        return compensate("VOID", "VOIDED", checkoutId, tenantId, voidOperationId, token, authorizationOperationId,
                amount);
    }

    public CompensationOutcome refund(CheckoutId checkoutId, TenantId tenantId, OperationId refundOperationId,
                                      FencingToken token, OperationId authorizationOperationId, Money amount) {
        return compensate("REFUND", "REFUNDED", checkoutId, tenantId, refundOperationId, token, authorizationOperationId,
                amount);
    }

    /**
     * Captures {@code amount} of the authorization under {@code captureOperationId} (the provider's idempotency key)
     * unless an outcome is already recorded. CAPTURED and DECLINED are terminal and answered from the record; UNKNOWN
     * and FAILED are not: the next owner asks again under the same id, and the provider answers what it recorded.
     */
    public CaptureOutcome capture(CheckoutId checkoutId, TenantId tenantId, OperationId captureOperationId,
                                  FencingToken token, OperationId authorizationOperationId, Money amount) {
        return savepoints.run(() -> captureOnce(checkoutId, tenantId, captureOperationId, token,
                authorizationOperationId, amount));
    }

    private CaptureOutcome captureOnce(CheckoutId checkoutId, TenantId tenantId, OperationId operationId,
                                       FencingToken token, OperationId authorizationOperationId, Money amount) {
        Claim claim = claim(operationId, "CAPTURE", checkoutId, tenantId, token, authorizationOperationId, amount);
        if (claim.stale()) {
            return CaptureOutcome.stale(claim.highestAccepted());
        }
        switch (claim.status()) {
            case "CAPTURED" -> {
                Object minor = claim.row().get("captured_minor");
                Money captured = minor == null ? amount
                        : new Money(((Number) minor).longValue(), claim.string("currency"));
                return CaptureOutcome.of(CaptureOutcome.Status.CAPTURED, claim.string("provider_reference"), captured,
                        null, true);
            }
            case "DECLINED" -> {
                return CaptureOutcome.of(CaptureOutcome.Status.DECLINED, claim.string("provider_reference"), null,
                        claim.string("detail"), true);
            }
            default -> {
            }
        }
        // the mutant (fault matrix, tests): a key of this attempt's own, so the provider sees a new capture each time
        OperationId key = mutants.captureKeyPerAttempt()
                ? new OperationId(operationId.value() + "/attempt-" + claim.row().get("attempts")) : operationId;
        CaptureAnswer answer = provider.capture(authorizationOperationId, key, amount);
        CaptureOutcome.Status status = switch (answer.status()) {
            case CAPTURED -> CaptureOutcome.Status.CAPTURED;
            case DECLINED -> CaptureOutcome.Status.DECLINED;
            case UNKNOWN -> CaptureOutcome.Status.UNKNOWN;
            case UNAVAILABLE -> CaptureOutcome.Status.FAILED;
        };
        Money captured = status == CaptureOutcome.Status.CAPTURED
                ? (answer.captured() == null ? amount : answer.captured()) : null;
        record(operationId, status.name(), answer.reference(), answer.detail(),
                captured == null ? null : captured.minor());
        return CaptureOutcome.of(status, answer.reference(), captured, answer.detail(), false);
    }

    private CompensationOutcome compensate(String kind, String doneStatus, CheckoutId checkoutId, TenantId tenantId,
                                           OperationId operationId, FencingToken token,
                                           OperationId authorizationOperationId, Money amount) {
        return savepoints.run(() -> compensateOnce(kind, doneStatus, checkoutId, tenantId, operationId, token,
                authorizationOperationId, amount));
    }

    private CompensationOutcome compensateOnce(String kind, String doneStatus, CheckoutId checkoutId,
                                               TenantId tenantId, OperationId operationId, FencingToken token,
                                               OperationId authorizationOperationId, Money amount) {
        Claim claim = claim(operationId, kind, checkoutId, tenantId, token, authorizationOperationId, amount);
        if (claim.stale()) {
            return CompensationOutcome.stale(claim.highestAccepted());
        }
        if (doneStatus.equals(claim.status())) {
            return CompensationOutcome.of(CompensationOutcome.Status.DONE, claim.string("provider_reference"), null, true);
        }
        CompensationAnswer answer = "VOID".equals(kind)
                ? provider.voidAuthorization(authorizationOperationId, operationId, amount)
                : provider.refund(authorizationOperationId, operationId, amount);
        if (answer.done()) {
            record(operationId, doneStatus, answer.reference(), null);
            if ("VOID".equals(kind)) {
                // A void settles an authorization not yet decided here: the provider refuses it from now on, so a
                // redelivered authorization intent must not call again.
                recordAuthorizationOutcome(authorizationOperationId, "DECLINED", null,
                        "voided by " + operationId.value());
            }
            return CompensationOutcome.of(CompensationOutcome.Status.DONE, answer.reference(), null, false);
        }
        record(operationId, "FAILED", null, answer.detail());
        return CompensationOutcome.of(CompensationOutcome.Status.FAILED, null, answer.detail(), false);
    }

    /**
     * The checkout recorded the authorization's outcome from other evidence (a provider notification, an operator,
     * a lookup's NOT_FOUND followed by a void): record it here too, so that a redelivered authorization intent is
     * answered from this row instead of calling the provider again. A decided row is left as it is.
     */
    /**
     * Whether this resource decided {@code authorizationOperationId} itself and committed it, so a resolution would
     * write nothing; asked once per resolution (the answer is forgotten).
     */
    public boolean decidedHere(OperationId authorizationOperationId) {
        return decidedHere.remove(authorizationOperationId.value());
    }

    public void recordResolution(OperationId authorizationOperationId, boolean authorized, String reference,
                                 String detail) {
        if (decidedHere.remove(authorizationOperationId.value())) {
            return; // decided and committed here: the guarded update below would match no row
        }
        savepoints.run(() -> {
            recordAuthorizationOutcome(authorizationOperationId, authorized ? "AUTHORIZED" : "DECLINED", reference,
                    detail);
            return null;
        });
    }

    private void recordAuthorizationOutcome(OperationId authorizationOperationId, String status, String reference,
                                            String detail) {
        jdbc.update("UPDATE payment_operations SET status = :status,"
                        + " provider_reference = coalesce(:ref, provider_reference), detail = :detail, updated_at = now(),"
                        + " outcome_recorded_at = coalesce(outcome_recorded_at, clock_timestamp())"
                        + " WHERE operation_id = :op AND kind = 'AUTHORIZE' AND status IN ('STARTED', 'UNKNOWN', 'FAILED',"
                        + " 'ACTION_REQUIRED')",
                new MapSqlParameterSource()
                        .addValue("op", authorizationOperationId.value())
                        .addValue("status", status)
                        .addValue("ref", Bounds.require("provider_reference", reference, Bounds.PROVIDER_REFERENCE))
                        .addValue("detail", Bounds.clip(detail, Bounds.DETAIL)));
    }

    /** Remembered only once the outcome is durable: a rolled-back decision must still be written by a resolution. */
    private void rememberDecidedOnCommit(OperationId operationId) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            decidedHere.add(operationId.value()); // auto-commit: already durable
        } else if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    decidedHere.add(operationId.value());
                }
            });
        } // a transaction Spring cannot follow: not remembered, the resolution writes as before
    }

    private Claim claim(OperationId operationId, String kind, CheckoutId checkoutId, TenantId tenantId,
                        FencingToken token, OperationId authorizationOperationId, Money amount) {
        Map<String, Object> columns = FencedOperations.baseColumns(operationId, kind, checkoutId.value(),
                tenantId.value(), token);
        columns.put("authorization_operation_id",
                authorizationOperationId == null ? null : authorizationOperationId.value());
        columns.put("amount_minor", amount == null ? null : amount.minor());
        columns.put("currency", amount == null ? null : amount.currency());
        Claim claim = operations.claim(columns);
        // the fault matrix's mutant (off unless switched on for a test run): the record is forgotten, so the
        // provider is called again, which the matrix's effect counts must catch
        return mutants.callProviderAfterOutcome() ? claim.withoutRecordedOutcome() : claim;
    }

    private void record(OperationId operationId, String status, String reference, String detail) {
        record(operationId, status, reference, detail, null);
    }

    private void record(OperationId operationId, String status, String reference, String detail, Long capturedMinor) {
        // outcome_recorded_at: the first time a final outcome was recorded; no call for this operation may follow.
        jdbc.update("UPDATE payment_operations SET status = :status, provider_reference = coalesce(:ref, provider_reference),"
                        + " detail = :detail, attempts = attempts + 1, updated_at = now(),"
                        + " captured_minor = coalesce(:captured, captured_minor),"
                        + " outcome_recorded_at = CASE WHEN :status IN ('AUTHORIZED', 'DECLINED', 'VOIDED', 'REFUNDED',"
                        + " 'CAPTURED')"
                        + " THEN coalesce(outcome_recorded_at, clock_timestamp()) END"
                        + " WHERE operation_id = :op",
                new MapSqlParameterSource()
                        .addValue("op", operationId.value())
                        .addValue("status", status)
                        .addValue("captured", capturedMinor, java.sql.Types.BIGINT)
                        // the provider's reference is evidence (void, refund, disputes): rejected if it does not
                        // fit, never cut (a cut reference would name another authorization)
                        .addValue("ref", Bounds.require("provider_reference", reference, Bounds.PROVIDER_REFERENCE))
                        .addValue("detail", Bounds.clip(detail, Bounds.DETAIL)));
    }

    /** The recorded status of an operation, for tests and operators. */
    public String statusOf(OperationId operationId) {
        return jdbc.query("SELECT status FROM payment_operations WHERE operation_id = :op",
                Map.of("op", operationId.value()), rs -> rs.next() ? rs.getString(1) : null);
    }
}
