package io.durablecheckout.orchestrator.it.support;

import com.icegreen.greenmail.store.StoredMessage;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.durablecheckout.activities.payments.stripe.fake.StripeFake;
import io.durablecheckout.activities.payments.stripe.fake.StripeFake.Effect;
import io.durablecheckout.activities.receipts.SmtpMailPort;
import io.durablecheckout.api.values.OperationId;
import jakarta.mail.MessagingException;
import org.springframework.jdbc.core.JdbcTemplate;

import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A fault-matrix run at the product's real edges: the nodes pay through the Stripe adapter and the official SDK
 * against a stateful fake of Stripe's API ({@link StripeFake}) and send receipts over SMTP to a real SMTP server
 * (GreenMail), both in the test JVM, so they outlive every node the run kills. Effects are counted there, where a
 * customer would see them twice: PaymentIntents created and charges made per operation, cancellations and refunds per
 * intent at the fake; messages per operation (its {@code Message-ID}) at the SMTP server.
 */
public final class MatrixEdges implements AutoCloseable {

    /** The workload in Stripe's test payment methods, and the fake's own for a charge whose answer comes too late. */
    public static final List<FaultMatrix.Order> WORKLOAD = List.of(
            new FaultMatrix.Order("pm_card_visa", false), new FaultMatrix.Order("pm_card_visa", false),
            new FaultMatrix.Order("pm_card_visa", false), new FaultMatrix.Order("pm_card_visa", false),
            new FaultMatrix.Order("pm_card_visa", true), new FaultMatrix.Order("pm_card_visa", true),
            new FaultMatrix.Order("pm_card_visa_chargeDeclined", false),
            new FaultMatrix.Order("pm_card_visa_chargeDeclined", false),
            new FaultMatrix.Order(StripeFake.SLOW_AFTER_CHARGE, false),
            new FaultMatrix.Order(StripeFake.SLOW_AFTER_CHARGE, false),
            new FaultMatrix.Order(StripeFake.SLOW_AFTER_CHARGE, false),
            new FaultMatrix.Order(StripeFake.RATE_LIMITED_ONCE, false),
            new FaultMatrix.Order(StripeFake.RATE_LIMITED_ONCE, false),
            new FaultMatrix.Order("pm_card_authenticationRequired", false));

    /**
     * 3-D Secure that nobody completes: the checkout waits for the customer (`customer_action_required`) until the
     * matrix's short customer-action timeout, then is cancelled (the intent voided); allowed in review as before.
     */
    public static final Set<String> MANUAL_REVIEW_BY_DESIGN = Set.of("pm_card_authenticationRequired");

    /** Longer than the nodes wait for Stripe (checkout.payments.request-timeout in the matrix: 1.5 s). */
    public static final int SLOW_ANSWER_MILLIS = 2_500;

    public final StripeFake stripe = new StripeFake(SLOW_ANSWER_MILLIS);
    public final GreenMail smtp = new GreenMail(ServerSetupTest.SMTP.dynamicPort());

    public MatrixEdges() {
        smtp.start();
    }

    /** The properties that put a node on Stripe and SMTP instead of the simulator and the demo mail sink. */
    public List<String> nodeArgs() {
        return List.of("--checkout.payments.provider=stripe", "--checkout.payments.stripe.api-key=sk_test_matrix",
                "--checkout.payments.stripe.webhook-secret=whsec_matrix_edges_endpoint_secret_0000",
                "--checkout.payments.stripe.api-base=http://127.0.0.1:" + stripe.port(),
                "--checkout.mail.transport=smtp", "--spring.mail.host=127.0.0.1",
                "--spring.mail.port=" + smtp.getSmtp().getPort(), "--checkout.mail.from=receipts@shop.example",
                "--checkout.workflow.customer-action-timeout=10s"); // the run settles within the matrix's limit
    }

    /** Messages the SMTP server accepted, per operation ({@code X-Checkout-Operation}), with when each arrived. */
    public Map<String, List<Timestamp>> messages() {
        Map<String, List<Timestamp>> out = new TreeMap<>();
        for (StoredMessage m : smtp.getManagers().getImapHostManager().getAllMessages()) {
            try {
                String op = m.getMimeMessage().getHeader("X-Checkout-Operation", null);
                String messageId = m.getMimeMessage().getMessageID();
                String expected = SmtpMailPort.messageId(new OperationId(op), "d").replace("@d>", "@");
                if (messageId == null || !messageId.startsWith(expected)) {
                    // the resend rule rests on the Message-ID: a message without the operation's is a defect too
                    out.computeIfAbsent("(Message-ID " + messageId + " not the operation's: " + op + ")",
                            k -> new ArrayList<>()).add(new Timestamp(m.getReceivedDate().getTime()));
                }
                out.computeIfAbsent(op, k -> new ArrayList<>()).add(new Timestamp(m.getReceivedDate().getTime()));
            } catch (MessagingException e) {
                throw new IllegalStateException(e);
            }
        }
        return out;
    }

    /**
     * The effect checks at the edges, in the matrix's wording (a leading "1 " counts as a duplicated effect).
     *
     * @param resendWindow        whether the run's fault can fall between the SMTP server's acceptance and the commit
     * @param recoveryStartedAt   when the recovering node started (null: no kill), by the same host's clock
     * @param staleCallTolerated  a frozen node's one late call (the pause scenario)
     */
    public List<String> violations(JdbcTemplate db, boolean resendWindow, Timestamp recoveryStartedAt,
                            boolean staleCallTolerated) {
        List<String> v = new ArrayList<>();
        stripe.effects(Effect.INTENT_CREATED).forEach((op, n) -> {
            if (n > 1) v.add("1 one PaymentIntent per operation at Stripe: " + op + " created " + n);
        });
        stripe.effects(Effect.CHARGE).forEach((op, n) -> {
            if (n > 1) v.add("1 one charge per operation at Stripe: " + op + " charged " + n);
        });
        stripe.effects(Effect.CANCEL).forEach((intent, n) -> {
            if (n > 1) v.add("1 one cancellation per PaymentIntent: " + intent + " " + n);
        });
        stripe.effects(Effect.REFUND).forEach((intent, n) -> {
            if (n > 1) v.add("1 one refund per PaymentIntent: " + intent + " " + n);
        });
        stripe.effects(Effect.CAPTURE).forEach((op, n) -> {
            if (n > 1) v.add("1 one capture per authorization at Stripe: " + op + " captured " + n);
        });
        Map<String, Timestamp> recorded = new TreeMap<>();
        db.query("SELECT operation_id, outcome_recorded_at FROM payment_operations WHERE outcome_recorded_at IS NOT NULL",
                rs -> {
                    recorded.put(rs.getString(1), rs.getTimestamp(2));
                });
        if (!staleCallTolerated) {
            for (StripeFake.Call call : stripe.actingCalls()) {
                Timestamp at = recorded.get(StripeFake.operationOf(call.idempotencyKey()));
                if (at != null && call.atMillis() > at.getTime()) {
                    v.add("1 no Stripe call that can act after the operation's outcome was recorded: " + call.method()
                            + " " + call.path() + " " + call.idempotencyKey());
                }
            }
        }
        Map<String, List<Timestamp>> messages = messages();
        Map<String, Timestamp> sentRecorded = new TreeMap<>();
        db.query("""
                SELECT operation_id, outcome_recorded_at FROM receipt_operations
                WHERE status = 'SENT' AND recipient <> '[erased]'""", rs -> {
            sentRecorded.put(rs.getString(1), rs.getTimestamp(2));
        });
        sentRecorded.forEach((op, at) -> {
            List<Timestamp> arrived = messages.getOrDefault(op, List.of());
            if (arrived.isEmpty()) v.add("1 a message recorded as sent reached the SMTP server: " + op);
            if (at != null && arrived.stream().anyMatch(t -> t.after(at))) {
                v.add("1 no message sent after it was recorded as sent: " + op);
            }
        });
        messages.forEach((op, arrived) -> {
            // one resend in a crash window, the recovering node's: the first before it started, the second after
            boolean window = resendWindow && arrived.size() == 2 && (recoveryStartedAt == null
                    || (arrived.stream().anyMatch(t -> t.before(recoveryStartedAt))
                    && arrived.stream().anyMatch(t -> !t.before(recoveryStartedAt))));
            int allowed = window ? 2 : 1;
            if (arrived.size() > allowed || op.startsWith("(")) {
                v.add("1 one message per operation" + (resendWindow ? ", one resend in the crash window"
                        : " outside a crash window") + ": " + op + " arrived " + arrived.size() + " times");
            }
        });
        // the counting itself: a completed checkout's intent and receipt must have reached the fake and the server
        Map<String, Integer> created = stripe.effects(Effect.INTENT_CREATED);
        db.query("SELECT checkout_id FROM checkout_summary WHERE state = 'completed'", rs -> {
            String id = rs.getString(1);
            if (!created.containsKey(id + "/authorize-payment") || !messages.containsKey(id + "/send-receipt")) {
                v.add("effects not counted for completed checkout " + id);
            }
        });
        stripe.violations().forEach(s -> v.add("an answer Stripe's description does not allow: " + s));
        return v;
    }

    /** {@code stripe intents 14/14 (max 1), charges ..., smtp messages 12/12 (max 1)}. */
    public String summary() {
        Map<String, List<Timestamp>> messages = messages();
        return "stripe " + List.of(Effect.values()).stream().map(e -> {
            Map<String, Integer> per = stripe.effects(e);
            return e.name().toLowerCase(java.util.Locale.ROOT) + " " + per.size() + "/"
                    + per.values().stream().mapToInt(Integer::intValue).sum() + " (max "
                    + per.values().stream().mapToInt(Integer::intValue).max().orElse(0) + ")";
        }).collect(Collectors.joining(", ")) + "; smtp messages " + messages.size() + "/"
                + messages.values().stream().mapToInt(List::size).sum() + " (max "
                + messages.values().stream().mapToInt(List::size).max().orElse(0) + ")";
    }

    @Override
    public void close() {
        try {
            stripe.close();
        } finally {
            smtp.stop();
        }
    }
}
