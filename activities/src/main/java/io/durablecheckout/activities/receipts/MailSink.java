package io.durablecheckout.activities.receipts;

import io.durablecheckout.activities.privacy.PersonalDataVault;
import io.durablecheckout.api.values.OperationId;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.lang.management.ManagementFactory;

/**
 * The demo's mail adapter: delivers nothing, records every send request in {@code mail_sink_messages} (duplicates
 * included) in its own committed transaction, as an external mail service would have accepted it whatever happens
 * to the caller's transaction. The fault matrix counts messages here. Replace with a real adapter (a
 * {@link MailPort} bean, or {@code checkout.mail.transport=smtp}) where customers must get mail;
 * {@code checkout.mail.sink.enabled=false} removes this one.
 * <p>
 * The recipient is stored sealed under the checkout's personal-data key (as the receipts service's own records are):
 * an erasure then leaves nothing readable in the table's files or in the WAL written since, where overwriting a plain
 * address would have left the old row version's bytes behind.
 */
@Component
@ConditionalOnExpression("'${checkout.mail.transport:sink}' == 'sink' and ${checkout.mail.sink.enabled:true}")
public class MailSink implements MailPort {

    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final String sender;
    private final PersonalDataVault vault;

    @Autowired
    public MailSink(DataSource dataSource, PlatformTransactionManager transactionManager, Environment env,
                    PersonalDataVault vault) {
        this(dataSource, transactionManager, env.getProperty("checkout.processing.node-id", ""), vault);
    }

    /** {@code sender}: this node's id as its processors claim with it (pid@host when blank, as they default). */
    MailSink(DataSource dataSource, PlatformTransactionManager transactionManager, String sender,
             PersonalDataVault vault) {
        this.vault = vault;
        this.sender = sender == null || sender.isBlank() ? ManagementFactory.getRuntimeMXBean().getName() : sender;
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.transactions = new TransactionTemplate(transactionManager);
        // outside the caller's transaction, as a mail service's own record is: one autocommitted insert (a
        // transaction of its own would add a BEGIN for one statement)
        this.transactions.setPropagationBehavior(TransactionDefinition.PROPAGATION_NOT_SUPPORTED);
    }

    /** For tests that build resources by hand. */
    public MailSink(DataSource dataSource, PersonalDataVault vault) {
        this(dataSource, new DataSourceTransactionManager(dataSource), "", vault);
    }

    /** The recipient as this table keeps it: sealed under the checkout's key ({@value PersonalDataVault#ERASED} once erased). */
    String sealedRecipient(OperationId operationId, String recipient) {
        int slash = operationId.value().indexOf('/');
        String checkoutId = slash < 0 ? operationId.value() : operationId.value().substring(0, slash);
        return vault.sealedCopy(checkoutId, PersonalDataVault.EMAIL, recipient).orElse(PersonalDataVault.ERASED);
    }

    @Override
    public void send(OperationId operationId, String idempotencyKey, OutboundMessage message) {
        // sealed in the caller's transaction, which may just have registered the checkout's key (a legacy plain
        // address): from the sink's own transaction that uncommitted registration would block the seal
        String recipient = sealedRecipient(operationId, message.recipient());
        transactions.executeWithoutResult(tx -> jdbc.update("INSERT INTO mail_sink_messages"
                        + " (operation_id, idempotency_key, recipient, subject, body, sent_by)"
                        + " VALUES (:op, :key, :recipient, :subject, :body, :sender)",
                new MapSqlParameterSource()
                        .addValue("op", operationId.value())
                        .addValue("key", idempotencyKey)
                        .addValue("recipient", recipient)
                        .addValue("subject", message.subject())
                        .addValue("body", message.body())
                        .addValue("sender", sender)));
    }
}
