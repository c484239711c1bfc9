package io.durablecheckout.activities.receipts;

import io.durablecheckout.activities.Bounds;
import io.durablecheckout.activities.privacy.PersonalDataVault;

import io.durablecheckout.activities.FencedOperations;
import io.durablecheckout.activities.Savepoints;
import io.durablecheckout.activities.FencedOperations.Claim;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.activities.ResourceMutants;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;
import java.util.Map;
import java.util.Optional;

/**
 * Sends a message through the {@link MailPort} once per operation id, fenced by token, and records it (a copy in
 * {@code outbound_messages}, the operation's SENT status). Runs inside the caller's transaction, so the record and
 * the result event commit together; the send itself cannot be rolled back, so a crash between the send and the
 * commit sends again on redelivery, under the same idempotency key (the operation id). Once SENT is recorded, nothing
 * is sent for that operation again; likewise once UNDELIVERABLE is (a recipient refused for good,
 * {@link MailDeliveryException}). A retryable refusal records nothing but the claim.
 */
@Component
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.receipts.enabled"}, havingValue = "true",
        matchIfMissing = true) // the service as its own process: docs/scaling.md
public class ReceiptsResource {

    public static final String OPERATIONS_TABLE = "receipt_operations";

    public enum Kind { RECEIPT, CANCELLATION_NOTICE }

    /** The mail service refused the recipient for good; answered from the record from then on. */
    public static final String UNDELIVERABLE = "UNDELIVERABLE";

    private final NamedParameterJdbcTemplate jdbc;
    private final FencedOperations operations;
    private final MailPort mail;
    private final ResourceMutants mutants;
    private final Savepoints savepoints;
    private final PersonalDataVault vault;

    @Autowired
    public ReceiptsResource(DataSource dataSource, MailPort mail, ResourceMutants mutants, PersonalDataVault vault) {
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.savepoints = new Savepoints(dataSource);
        this.operations = new FencedOperations(jdbc, OPERATIONS_TABLE);
        this.vault = vault;
        this.mail = mail;
        this.mutants = mutants;
    }

    /** With the demo mail sink, for tests. */
    public ReceiptsResource(DataSource dataSource, PersonalDataVault vault) {
        this(dataSource, new MailSink(dataSource, vault), ResourceMutants.NONE, vault);
    }

    public DeliveryOutcome send(Kind kind, CheckoutId checkoutId, TenantId tenantId, OperationId operationId,
                                FencingToken token, OutboundMessage message) {
        return savepoints.run(() -> sendOnce(kind, checkoutId, tenantId, operationId, token, message));
    }

    private DeliveryOutcome sendOnce(Kind kind, CheckoutId checkoutId, TenantId tenantId, OperationId operationId,
                                     FencingToken token, OutboundMessage message) {
        Bounds.require("subject", message.subject(), 500);
        Map<String, Object> columns = FencedOperations.baseColumns(operationId, kind.name(), checkoutId.value(),
                tenantId.value(), token);
        // The address arrives sealed (PersonalDataVault) and is kept sealed, so destroying the key erases these rows'
        // copies too, old row versions and backups included. Erased: the message is recorded as done without being
        // sent (there is nobody to send it to), so the workflow still finishes.
        Optional<String> opened = vault.open(checkoutId.value(), PersonalDataVault.EMAIL, message.recipient());
        Optional<String> kept = opened.isEmpty() ? Optional.empty()
                : vault.sealedCopy(checkoutId.value(), PersonalDataVault.EMAIL, message.recipient());
        String recipient = kept.isPresent() ? opened.get() : PersonalDataVault.ERASED;
        Bounds.require("recipient", recipient, Bounds.RECIPIENT); // the opened address: the sealed one is longer
        String keptRecipient = kept.orElse(PersonalDataVault.ERASED);
        columns.put("recipient", keptRecipient);
        Claim claim = operations.claim(columns);
        if (claim.stale()) {
            return DeliveryOutcome.stale(claim.highestAccepted());
        }
        if ("SENT".equals(claim.status()) && !mutants.sendMessageAgain()) {
            return DeliveryOutcome.sent(true);
        }
        if (UNDELIVERABLE.equals(claim.status())) {
            return DeliveryOutcome.failed(claim.string("failure_detail"), true, true);
        }
        boolean erased = PersonalDataVault.ERASED.equals(recipient);
        if (!erased) {
            try {
                mail.send(operationId, operationId.value(), message.to(recipient));
                if (mutants.sendMessageTwice()) {
                    mail.send(operationId, operationId.value(), message.to(recipient));
                }
            } catch (MailDeliveryException e) {
                String detail = Bounds.clip(e.getMessage(), Bounds.DETAIL);
                if (e.finalForRecipient()) {
                    jdbc.update("UPDATE receipt_operations SET status = '" + UNDELIVERABLE + "', failure_detail = :detail,"
                                    + " updated_at = now(), outcome_recorded_at = coalesce(outcome_recorded_at,"
                                    + " clock_timestamp()) WHERE operation_id = :op",
                            Map.of("op", operationId.value(), "detail", detail));
                }
                // retryable: the row stays STARTED and the attempt is reported as failed, to be retried
                return DeliveryOutcome.failed(detail, e.finalForRecipient(), false);
            }
        }
        // The copy and the SENT status in one statement (erased: nothing was sent, no copy). The unique operation_id
        // makes a second copy impossible even if the status logic were bypassed.
        String sent = "UPDATE receipt_operations SET status = 'SENT', updated_at = now(),"
                + " outcome_recorded_at = coalesce(outcome_recorded_at, clock_timestamp()) WHERE operation_id = :op";
        jdbc.update(erased ? sent : "WITH copy AS (INSERT INTO outbound_messages (operation_id, recipient, subject, body)"
                        + " VALUES (:op, :recipient, :subject, :body) ON CONFLICT (operation_id) DO NOTHING) " + sent,
                new MapSqlParameterSource()
                        .addValue("op", operationId.value())
                        .addValue("recipient", keptRecipient)
                        .addValue("subject", message.subject())
                        .addValue("body", message.body()));
        return DeliveryOutcome.sent(false);
    }

    /** Messages in the outbox for an operation (0 or 1), for tests and operators. */
    public int messagesFor(OperationId operationId) {
        Integer count = jdbc.queryForObject("SELECT count(*) FROM outbound_messages WHERE operation_id = :op",
                Map.of("op", operationId.value()), Integer.class);
        return count == null ? 0 : count;
    }
}
