package io.durablecheckout.activities.privacy;

import io.durablecheckout.activities.PostgresTestSupport;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The vault over a real PostgreSQL and a key directory: the key lives only in the store; erasure deletes it. */
class PersonalDataVaultTest extends PostgresTestSupport {

    @Test
    void theKeyIsAFileNotARowAndErasureDeletesTheFile() {
        String id = "chk-v1";
        PersonalDataVault.SealedCheckout sealed = vault.sealCheckout(id, "tok_approve", "ada@example.com", "canonical");
        assertThat(sealed.customerEmail()).startsWith(PersonalDataVault.PREFIX).doesNotContain("ada");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM personal_data_keys WHERE checkout_id = ? "
                + "AND data_key IS NULL AND erased_at IS NULL", Integer.class, id)).isEqualTo(1);
        assertThat(keys.file(id)).exists();
        assertThat(vault.open(id, PersonalDataVault.EMAIL, sealed.customerEmail())).contains("ada@example.com");

        assertThat(vault.erase(id, "operator:test", "request")).isTrue();

        assertThat(keys.file(id)).doesNotExist();
        assertThat(vault.erased(id)).isTrue();
        assertThat(vault.open(id, PersonalDataVault.EMAIL, sealed.customerEmail())).isEmpty();
        assertThat(vault.fingerprint(id, "canonical")).isEmpty();
        assertThatThrownBy(() -> vault.seal(id, PersonalDataVault.EMAIL, "x@example.com"))
                .isInstanceOf(PersonalDataVault.ErasedException.class);
        assertThat(keys.file(id)).as("nothing sealed after erasure creates a key again").doesNotExist();
        assertThat(vault.erase(id, "operator:test", "again")).isFalse();
    }

    @Test
    void aKeyOpenedInATransactionSealsAgainWithoutAnotherLookUp() {
        String id = "chk-once";
        PersonalDataVault.SealedCheckout sealed = vault.sealCheckout(id, "tok_approve", "ada@example.com", "canonical");
        java.util.concurrent.atomic.AtomicInteger lookUps = new java.util.concurrent.atomic.AtomicInteger();
        javax.sql.DataSource counting = io.durablecheckout.activities.CountingDataSource.counting(dataSource,
                "personal_data_keys", lookUps);
        PersonalDataVault counted = new PersonalDataVault(counting, keys);
        org.springframework.transaction.support.TransactionTemplate countedTx =
                new org.springframework.transaction.support.TransactionTemplate(
                        new org.springframework.jdbc.datasource.DataSourceTransactionManager(counting));
        String copy = countedTx.execute(status -> {
            // a receipt: the address opened, then sealed again by the mail sink for its own record
            String address = counted.open(id, PersonalDataVault.EMAIL, sealed.customerEmail()).orElseThrow();
            return counted.sealedCopy(id, PersonalDataVault.EMAIL, address).orElseThrow();
        });
        assertThat(lookUps).as("one look-up of the registration in the transaction").hasValue(1);
        assertThat(vault.open(id, PersonalDataVault.EMAIL, copy)).contains("ada@example.com");

        // the next transaction looks again (an erasure between the two must be seen), and erasing inside one drops it
        countedTx.executeWithoutResult(status -> {
            assertThat(counted.open(id, PersonalDataVault.EMAIL, sealed.customerEmail())).isPresent();
            counted.erase(id, "operator:test", "request");
            assertThatThrownBy(() -> counted.seal(id, PersonalDataVault.EMAIL, "ada@example.com"))
                    .isInstanceOf(PersonalDataVault.ErasedException.class);
        });
        assertThat(lookUps).hasValueGreaterThan(2);
    }

    @Test
    void aRegistrationIsNewOnceMakesNoKeyAndGoesWithItsTransaction() {
        String id = "chk-register";
        tx.executeWithoutResult(status -> {
            assertThat(vault.register(id).isNew()).isTrue();
            assertThat(vault.register(id).isNew()).as("the same transaction sees its own row").isFalse();
            status.setRollbackOnly(); // a submission refused after registering
        });
        assertThat(jdbc.queryForObject("SELECT count(*) FROM personal_data_keys WHERE checkout_id = ?", Integer.class, id))
                .isZero();
        assertThat(keys.file(id)).as("registering makes no key").doesNotExist();

        PersonalDataVault.Registered first = vault.register(id);
        assertThat(first.isNew()).isTrue();
        assertThat(keys.file(id)).doesNotExist();
        PersonalDataVault.SealedCheckout sealed = vault.sealCheckout(first, "tok_approve", "di@example.com", "canonical");
        assertThat(keys.file(id)).exists();
        assertThat(vault.register(id).isNew()).isFalse();
        assertThat(vault.open(id, PersonalDataVault.EMAIL, sealed.customerEmail())).contains("di@example.com");

        vault.erase(id, "operator:test", "request");
        PersonalDataVault.Registered erased = vault.register(id);
        assertThat(erased.isNew()).isFalse();
        assertThatThrownBy(() -> vault.sealCheckout(erased, "tok_approve", "di@example.com", "canonical"))
                .isInstanceOf(PersonalDataVault.ErasedException.class);
    }

    @Test
    void theKeyIsDestroyedOnlyWhenTheErasureCommits() {
        String id = "chk-v2";
        String sealed = vault.seal(id, PersonalDataVault.EMAIL, "bob@example.com");
        tx.executeWithoutResult(status -> {
            vault.erase(id, "operator:test", "rolled back");
            assertThat(keys.file(id)).as("not before the commit").exists();
            status.setRollbackOnly();
        });
        assertThat(keys.file(id)).exists();
        assertThat(vault.open(id, PersonalDataVault.EMAIL, sealed)).contains("bob@example.com");

        inTransaction(() -> {
            vault.erase(id, "operator:test", "committed");
        });
        assertThat(keys.file(id)).doesNotExist();
        assertThat(vault.open(id, PersonalDataVault.EMAIL, sealed)).isEmpty();
    }

    @Test
    void aKeyLeftBehindAnErasureOpensNothingAndTheNextStartDestroysIt() {
        String id = "chk-v3";
        String sealed = vault.seal(id, PersonalDataVault.EMAIL, "cy@example.com");
        // a crash between the committed tombstone and the file's deletion
        jdbc.update("UPDATE personal_data_keys SET erased_at = now(), erased_by = 'x', reason = 'y' WHERE checkout_id = ?", id);
        assertThat(keys.file(id)).exists();
        assertThat(vault.open(id, PersonalDataVault.EMAIL, sealed)).as("the tombstone wins").isEmpty();

        assertThat(new LegacyDataKeys(dataSource, keys, vault).run().leftoverKeysDestroyed()).isEqualTo(1);
        assertThat(keys.file(id)).doesNotExist();
    }

    @Test
    void keysAndPlainRecipientsOfAnEarlierVersionMoveToTheStoreAndAreSealed() {
        String id = "chk-v4";
        byte[] legacy = new byte[32];
        new SecureRandom().nextBytes(legacy);
        jdbc.update("INSERT INTO personal_data_keys (checkout_id, data_key) VALUES (?, ?)", id, legacy);
        String sealed = vault.seal(id, PersonalDataVault.EMAIL, "dee@example.com"); // sealed with the key in the table
        assertThat(keys.file(id)).as("a key still in the table is used as it is").doesNotExist();
        jdbc.update("INSERT INTO receipt_operations (operation_id, kind, checkout_id, tenant_id, fencing_token, status, "
                + "recipient) VALUES (?, 'RECEIPT', ?, 't1', 1, 'SENT', 'dee@example.com')", id + "/send-receipt", id);
        jdbc.update("INSERT INTO outbound_messages (operation_id, recipient, subject, body) "
                + "VALUES (?, 'dee@example.com', 's', 'b')", id + "/send-receipt");

        LegacyDataKeys.Result result = new LegacyDataKeys(dataSource, keys, vault).run();

        assertThat(result.keysMoved()).isEqualTo(1);
        assertThat(result.recipientsSealed()).isEqualTo(2);
        assertThat(keys.find(id)).contains(legacy);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM personal_data_keys WHERE checkout_id = ? AND data_key IS NULL "
                + "AND erased_at IS NULL", Integer.class, id)).isEqualTo(1);
        assertThat(vault.open(id, PersonalDataVault.EMAIL, sealed)).contains("dee@example.com");
        for (String table : new String[]{"receipt_operations", "outbound_messages"}) {
            String kept = jdbc.queryForObject("SELECT recipient FROM " + table + " WHERE operation_id = ?", String.class,
                    id + "/send-receipt");
            assertThat(kept).as(table).startsWith(PersonalDataVault.PREFIX);
            assertThat(vault.open(id, PersonalDataVault.EMAIL, kept)).contains("dee@example.com");
        }
        assertThat(new LegacyDataKeys(dataSource, keys, vault).run()).as("a second start has nothing to do")
                .isEqualTo(new LegacyDataKeys.Result(0, 0, 0));

        vault.erase(id, "operator:test", "request");
        assertThat(keys.find(id)).isEmpty();
        assertThat(vault.open(id, PersonalDataVault.EMAIL, sealed)).isEmpty();
    }

    /**
     * A start's looks for what an earlier version left in the clear go through partial indexes (V193), not through every
     * checkout's row: 5,000 checkouts as this version writes them, and no plan of those looks reads a whole table.
     */
    @Test
    void aStartLooksForLegacyDataWithoutReadingEveryCheckoutsRow() {
        jdbc.update("INSERT INTO personal_data_keys (checkout_id) SELECT 'chk-many-' || g FROM generate_series(1, 5000) g");
        jdbc.update("INSERT INTO receipt_operations (operation_id, kind, checkout_id, tenant_id, fencing_token, status, "
                + "recipient) SELECT 'chk-many-' || g || '/send-receipt', 'RECEIPT', 'chk-many-' || g, 't1', 1, 'SENT', "
                + "'enc:v1:sealed' FROM generate_series(1, 5000) g");
        jdbc.update("INSERT INTO outbound_messages (operation_id, recipient, subject, body) "
                + "SELECT 'chk-many-' || g || '/send-receipt', 'enc:v1:sealed', 's', 'b' FROM generate_series(1, 5000) g");
        jdbc.execute("ANALYZE personal_data_keys, receipt_operations, outbound_messages");

        for (String look : List.of(LegacyDataKeys.KEYS_IN_TABLE, LegacyDataKeys.ERASED_CHECKOUTS,
                LegacyDataKeys.RECEIPT_RECIPIENTS, LegacyDataKeys.MESSAGE_RECIPIENTS)) {
            assertThat(String.join("\n", jdbc.queryForList("EXPLAIN " + look, String.class))).as(look)
                    .doesNotContain("Seq Scan");
        }
    }
}
