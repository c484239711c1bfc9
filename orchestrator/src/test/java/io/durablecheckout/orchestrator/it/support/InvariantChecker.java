package io.durablecheckout.orchestrator.it.support;

import org.springframework.jdbc.core.JdbcTemplate;

import java.util.ArrayList;
import java.util.List;

/**
 * The invariants of DESIGN.md, checked over the tables and the event store as they are committed. Usable against any
 * database the product ran on (integration tests, the crash matrix). Each query returns the violating rows.
 */
public final class InvariantChecker {

    public static final String CALL_AFTER_OUTCOME = "1 no provider call after the operation's outcome was recorded";


    private final JdbcTemplate db;
    private final boolean demoEdges;

    public InvariantChecker(JdbcTemplate db) {
        this(db, true);
    }

    /**
     * @param demoEdges whether the product paid through the simulator and mailed through the demo sink, whose tables
     *                  the effect checks read; at the real edges (Stripe, SMTP) the fault matrix counts them there
     */
    public InvariantChecker(JdbcTemplate db, boolean demoEdges) {
        this.db = db;
        this.demoEdges = demoEdges;
    }

    public record Violation(String invariant, String evidence) {
    }

    public List<Violation> violations() {
        List<Violation> v = new ArrayList<>();
        // 1. Each side effect at most once per operation id, and one authorization operation per checkout.
        check(v, "1 one authorization per checkout at the provider", """
                SELECT split_part(operation_id, '/', 1) AS checkout, count(*) FROM simulator_authorizations
                GROUP BY 1 HAVING count(*) > 1""");
        check(v, "1 one receipt per checkout", """
                SELECT split_part(operation_id, '/', 1), count(*) FROM outbound_messages
                WHERE operation_id LIKE '%/send-receipt' GROUP BY 1 HAVING count(*) > 1""");
        check(v, "1 one reservation per checkout", """
                SELECT checkout_id, count(*) FROM inventory_operations WHERE kind = 'RESERVE'
                GROUP BY 1 HAVING count(*) > 1""");
        // (per operation: an operator's partial refunds are operations of their own, decision 130)
        check(v, "1 one recorded outcome per step", """
                SELECT aggregateidentifier, payloadtype, count(*) FROM domainevententry
                WHERE payloadtype IN ('io.durablecheckout.api.checkout.StockReservedEvent',
                                      'io.durablecheckout.api.checkout.PaymentAuthorizedEvent',
                                      'io.durablecheckout.api.checkout.ReceiptSentEvent',
                                      'io.durablecheckout.api.checkout.StockReleasedEvent',
                                      'io.durablecheckout.api.checkout.PaymentRefundedEvent',
                                      'io.durablecheckout.api.checkout.PaymentVoidedEvent',
                                      'io.durablecheckout.api.checkout.PaymentCapturedEvent',
                                      'io.durablecheckout.api.checkout.CheckoutCompletedEvent',
                                      'io.durablecheckout.api.checkout.CheckoutCancelledEvent')
                GROUP BY 1, 2, convert_from(payload, 'UTF8')::jsonb -> 'operationId' ->> 'value'
                HAVING count(*) > 1""");
        // 1, counted where the effects happen: the provider simulator's request log and the demo mail sink record
        // every request they receive, committed on their side whatever happens to the caller. A repeat is allowed
        // only before the outcome is recorded, and only under the original key (the provider deduplicates by it).
        check(v, "1 every authorization call carried its operation id as Idempotency-Key", """
                SELECT id, operation_id, idempotency_key FROM simulator_calls
                WHERE action = 'AUTHORIZE' AND idempotency_key IS DISTINCT FROM operation_id""");
        // an operator's refunds and a legacy hold's release or capture are operations of their own (decisions 130, 131)
        check(v, "1 every void or refund of an authorization carried one key, the compensation's operation id", """
                SELECT operation_id, action, string_agg(DISTINCT coalesce(idempotency_key, '<none>'), ' ')
                FROM simulator_calls WHERE action IN ('VOID', 'REFUND')
                GROUP BY 1, 2
                HAVING bool_or(idempotency_key IS NULL)
                    OR bool_or(idempotency_key <> split_part(operation_id, '/', 1)
                               || CASE action WHEN 'VOID' THEN '/void-payment' ELSE '/refund-payment' END
                           AND idempotency_key <> split_part(operation_id, '/', 1) || '/void-payment/legacy-hold'
                           AND idempotency_key !~ ('^' || split_part(operation_id, '/', 1)
                                                   || '/refund-payment/operator-[0-9]+$'))""");
        check(v, "1 every capture carried one key, the capture's operation id", """
                SELECT id, operation_id, idempotency_key FROM simulator_calls WHERE action = 'CAPTURE'
                  AND idempotency_key IS DISTINCT FROM split_part(operation_id, '/', 1) || '/capture-payment'
                  AND idempotency_key IS DISTINCT FROM split_part(operation_id, '/', 1) || '/capture-payment/legacy-hold'""");
        check(v, "1 at most one capture per authorization at the provider, never after a void", """
                SELECT operation_id, captures, voided FROM simulator_authorizations
                WHERE captures > 1 OR (captures > 0 AND voided)""");
        check(v, "1 every lookup named its lookup operation", """
                SELECT id, operation_id, idempotency_key FROM simulator_calls
                WHERE action = 'LOOKUP'
                  AND idempotency_key IS DISTINCT FROM split_part(operation_id, '/', 1) || '/reconcile-payment'
                  AND idempotency_key IS DISTINCT FROM split_part(operation_id, '/', 1) || '/operator-lookup'""");
        check(v, "1 every message carried its operation id as idempotency key", """
                SELECT id, operation_id, idempotency_key FROM mail_sink_messages
                WHERE idempotency_key IS DISTINCT FROM operation_id""");
        check(v, CALL_AFTER_OUTCOME, """
                SELECT c.action, c.idempotency_key, c.called_at, p.status, p.outcome_recorded_at
                FROM simulator_calls c JOIN payment_operations p ON p.operation_id = c.idempotency_key
                WHERE c.action IN ('AUTHORIZE', 'VOID', 'REFUND', 'CAPTURE')
                  AND p.outcome_recorded_at IS NOT NULL AND c.called_at > p.outcome_recorded_at""");
        check(v, "1 no message sent after it was recorded as sent", """
                SELECT m.operation_id, m.sent_at, r.outcome_recorded_at
                FROM mail_sink_messages m JOIN receipt_operations r ON r.operation_id = m.idempotency_key
                WHERE r.outcome_recorded_at IS NOT NULL AND m.sent_at > r.outcome_recorded_at""");
        check(v, "1 an authorization the checkout decided is decided at the resource too (else a redelivery calls again)", """
                SELECT p.operation_id, p.status FROM payment_operations p
                WHERE p.kind = 'AUTHORIZE' AND p.status NOT IN ('AUTHORIZED', 'DECLINED')
                  AND EXISTS (SELECT 1 FROM domainevententry e WHERE e.aggregateidentifier = p.checkout_id
                              AND e.payloadtype IN ('io.durablecheckout.api.checkout.PaymentAuthorizedEvent',
                                                    'io.durablecheckout.api.checkout.PaymentDeclinedEvent'))""");
        if (demoEdges) { // counted at the simulator's request log and the demo mail sink (else at the real edges)
            check(v, "1 a message recorded as sent reached the mail service", """
                    SELECT r.operation_id FROM receipt_operations r WHERE r.status = 'SENT'
                      AND r.recipient <> '[erased]' -- erased personal data: recorded as done, nobody to send it to
                      AND NOT EXISTS (SELECT 1 FROM mail_sink_messages m WHERE m.idempotency_key = r.operation_id)""");
            // An attempt may never have reached the provider: a timeout (a process frozen past its client's timeout
            // sends nothing) is recorded as unknown, and a connection never made (its connect timer fired while the
            // process was frozen, or nothing listened) as a failed attempt "not delivered". Only such attempts may
            // exceed the calls received. The worker's report carries the operation id; it is stored whether or not
            // the checkout then accepted it (a stale owner's report is rejected there, its attempt still counted).
            check(v, "1 payment_operations.attempts exceeds the calls the provider received under that key only by attempts recorded as unknown or not delivered", """
                    SELECT p.operation_id, p.attempts, count(c.id) AS calls
                    FROM payment_operations p LEFT JOIN simulator_calls c ON c.idempotency_key = p.operation_id
                    GROUP BY p.operation_id, p.checkout_id, p.attempts
                    HAVING p.attempts > count(c.id) + (SELECT count(*) FROM domainevententry e
                        CROSS JOIN LATERAL (SELECT convert_from(e.payload, 'UTF8')::jsonb AS j) r
                        WHERE e.payloadtype IN ('io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent',
                                                'io.durablecheckout.api.activity.PaymentCaptureOutcomeUnknownEvent',
                                                'io.durablecheckout.api.activity.ActivityAttemptFailedEvent')
                          AND coalesce(r.j -> 'operationId' ->> 'value', r.j ->> 'operationId') = p.operation_id
                          AND (e.payloadtype NOT LIKE '%.ActivityAttemptFailedEvent'
                               OR r.j ->> 'detail' LIKE 'connect timeout:%'
                               OR r.j ->> 'detail' LIKE 'cannot connect to %'))""");
        }
        check(v, "1 a decided payment operation was called and recorded at least once", """
                SELECT operation_id, status FROM payment_operations
                WHERE status IN ('AUTHORIZED', 'DECLINED', 'VOIDED', 'REFUNDED', 'ANSWERED') AND attempts < 1""");
        // 3. Unknown is resolved under the original operation id, never a fresh one.
        check(v, "3 authorizations only under the checkout's authorization operation id", """
                SELECT operation_id FROM simulator_authorizations WHERE operation_id NOT LIKE '%/authorize-payment'""");
        check(v, "3 lookups ask about the original operation id", """
                SELECT aggregateidentifier FROM domainevententry
                WHERE payloadtype = 'io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent'
                  AND convert_from(payload, 'UTF8')::jsonb -> 'authorizationOperationId' ->> 'value'
                      <> aggregateidentifier || '/authorize-payment'""");
        // 4. Every checkout is terminal or visibly waiting, with its reason and (unless an operator owns it) a deadline.
        // (a view last changed within 5 s may be between two events of one decision: the read model folds a batch at
        // a time, and a batch can end between a checkout's creation and its first intent)
        check(v, "4 waiting checkouts say why and until when", """
                SELECT checkout_id, state FROM checkout_summary
                WHERE NOT terminal AND updated_at < now() - interval '5 seconds' AND (waiting_reason IS NULL
                      OR (next_deadline IS NULL AND state <> 'manual_review' AND NOT view ? 'manualReview'))""");
        // with what would tell a lost deadline from one that fired and changed nothing: the checkout's deadline rows
        // (their data carries its id) and its last events
        check(v, "4 no deadline long overdue (a lost deadline would leave a checkout stuck invisibly)", """
                SELECT s.checkout_id, s.state, s.next_deadline,
                       'deadlines: ' || coalesce((SELECT string_agg(t.task_name || ' due ' || t.execution_time
                           || CASE WHEN t.picked THEN ' picked by ' || coalesce(t.picked_by, '?') ELSE '' END
                           || ' failures ' || coalesce(t.consecutive_failures, 0), '; ')
                           FROM scheduled_tasks t WHERE position(convert_to(s.checkout_id, 'UTF8') IN t.task_data) > 0),
                           'none'),
                       'last events: ' || (SELECT string_agg(substring(e.payloadtype FROM '[^.]*$'), ' < ')
                           FROM (SELECT payloadtype FROM domainevententry WHERE aggregateidentifier = s.checkout_id
                                 ORDER BY sequencenumber DESC LIMIT 4) e),
                       'history: ' || (SELECT string_agg(e.sequencenumber || ' ' || substring(e.payloadtype FROM '[^.]*$')
                           || ' ' || e.timestamp, ', ' ORDER BY e.sequencenumber)
                           FROM domainevententry e WHERE e.aggregateidentifier = s.checkout_id),
                       'its deadlines that ran: ' || coalesce((SELECT string_agg(x.deadline_name || ' on ' || x.node_id
                           || ' at ' || x.executed_at, ', ' ORDER BY x.id) FROM deadline_executions x
                           WHERE EXISTS (SELECT 1 FROM domainevententry e WHERE e.aggregateidentifier = s.checkout_id
                                         AND position(convert_to(x.task_instance, 'UTF8') IN e.metadata) > 0)), 'none')
                FROM checkout_summary s
                WHERE NOT s.terminal AND s.next_deadline < now() - interval '60 seconds'""");
        // 5. Compensations are new operations with their own idempotency keys.
        check(v, "5 releases have their own operation ids", """
                SELECT operation_id FROM inventory_operations
                WHERE kind = 'RELEASE' AND operation_id NOT LIKE '%/release-stock'""");
        check(v, "5 voids and refunds have their own keys", """
                SELECT idempotency_key FROM simulator_idempotency
                WHERE (action = 'VOID' AND idempotency_key NOT LIKE '%/void-payment'
                       AND idempotency_key NOT LIKE '%/void-payment/legacy-hold') -- an operator's (decision 131)
                   OR (action = 'REFUND' AND idempotency_key NOT LIKE '%/refund-payment'
                       AND idempotency_key NOT LIKE '%/refund-payment/operator-%')""");
        check(v, "5 cancellation notices are new messages", """
                SELECT operation_id FROM outbound_messages
                WHERE operation_id NOT LIKE '%/send-receipt' AND operation_id NOT LIKE '%/send-cancellation-notice'""");
        // 7. Stock is conserved, and what is reserved is exactly what live reservations hold.
        check(v, "7 available + reserved + sold = initial", """
                SELECT tenant_id, sku FROM stock WHERE available + reserved + sold <> initial_quantity""");
        check(v, "7 reserved stock equals the lines of live reservations", """
                SELECT s.tenant_id, s.sku, s.reserved, coalesce(sum(l.quantity), 0) AS held
                FROM stock s
                LEFT JOIN inventory_reservation_lines l ON l.tenant_id = s.tenant_id AND l.sku = s.sku
                     AND l.operation_id IN (SELECT operation_id FROM inventory_operations
                                            WHERE kind = 'RESERVE' AND status = 'RESERVED')
                GROUP BY s.tenant_id, s.sku, s.reserved HAVING s.reserved <> coalesce(sum(l.quantity), 0)""");
        check(v, "7 sold stock equals the lines of sold reservations", """
                SELECT s.tenant_id, s.sku, s.sold, coalesce(sum(l.quantity), 0) AS held
                FROM stock s
                LEFT JOIN inventory_reservation_lines l ON l.tenant_id = s.tenant_id AND l.sku = s.sku
                     AND l.operation_id IN (SELECT operation_id FROM inventory_operations
                                            WHERE kind = 'RESERVE' AND status = 'SOLD')
                GROUP BY s.tenant_id, s.sku, s.sold HAVING s.sold <> coalesce(sum(l.quantity), 0)""");
        return v;
    }

    private void check(List<Violation> violations, String invariant, String sql) {
        db.query(sql, rs -> {
            StringBuilder row = new StringBuilder();
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                row.append(i > 1 ? ", " : "").append(rs.getString(i));
            }
            violations.add(new Violation(invariant, row.toString()));
        });
    }
}
