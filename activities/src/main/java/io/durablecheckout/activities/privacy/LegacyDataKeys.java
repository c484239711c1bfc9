package io.durablecheckout.activities.privacy;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Once per start (docs/decisions.md, decision 62): moves the data keys an earlier version kept in
 * {@code personal_data_keys.data_key} to the {@link DataKeyStore} and clears the column, seals the plain addresses
 * earlier versions wrote to the receipts service's records, and destroys any key a crash left behind an erasure.
 * Safe while other nodes run: every step checks the value it replaces, and a second run finds nothing to do.
 */
public class LegacyDataKeys {

    private static final Logger log = LoggerFactory.getLogger(LegacyDataKeys.class);
    private static final int BATCH = 500;

    /**
     * What an earlier version left in the clear, each read through a partial index that holds only such rows (V193):
     * without it every start read all of three tables. The predicates are those of the indexes, constants written out
     * so that any plan can use them.
     */
    static final String KEYS_IN_TABLE = "SELECT checkout_id, data_key FROM personal_data_keys WHERE data_key IS NOT NULL "
            + "ORDER BY checkout_id LIMIT " + BATCH;
    private static final String PLAIN = " WHERE recipient NOT LIKE '" + PersonalDataVault.PREFIX + "%' AND recipient <> '"
            + PersonalDataVault.ERASED + "' LIMIT " + BATCH;

    static final String ERASED_CHECKOUTS = "SELECT checkout_id FROM personal_data_keys WHERE erased_at IS NOT NULL";
    static final String RECEIPT_RECIPIENTS =
            "SELECT operation_id AS id, checkout_id, recipient FROM receipt_operations" + PLAIN;
    static final String MESSAGE_RECIPIENTS = "SELECT id, coalesce((SELECT r.checkout_id FROM receipt_operations r "
            + "WHERE r.operation_id = outbound_messages.operation_id), split_part(operation_id, '/', 1)) AS checkout_id, "
            + "recipient FROM outbound_messages" + PLAIN;

    private final JdbcTemplate jdbc;
    private final DataKeyStore keys;
    private final PersonalDataVault vault;

    public LegacyDataKeys(DataSource dataSource, DataKeyStore keys, PersonalDataVault vault) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.keys = keys;
        this.vault = vault;
    }

    /** What a run did. */
    public record Result(int keysMoved, int recipientsSealed, int leftoverKeysDestroyed) {
    }

    public Result run() {
        int moved = moveKeys();
        int sealed = sealRecipients("receipt_operations", "operation_id", RECEIPT_RECIPIENTS)
                + sealRecipients("outbound_messages", "id", MESSAGE_RECIPIENTS);
        int destroyed = 0;
        for (String erased : jdbc.queryForList(ERASED_CHECKOUTS, String.class)) {
            if (keys.destroy(erased)) destroyed++;
        }
        if (moved + sealed + destroyed > 0) {
            log.info("Personal data: {} data keys moved out of PostgreSQL, {} plain recipients sealed, {} keys of erased "
                    + "checkouts destroyed", moved, sealed, destroyed);
        }
        return new Result(moved, sealed, destroyed);
    }

    private int moveKeys() {
        int moved = 0;
        List<Map<String, Object>> batch;
        do {
            batch = jdbc.queryForList(KEYS_IN_TABLE);
            for (Map<String, Object> row : batch) {
                String checkoutId = (String) row.get("checkout_id");
                byte[] key = (byte[]) row.get("data_key");
                byte[] inForce = keys.create(checkoutId, key);
                if (!Arrays.equals(inForce, key)) {
                    throw new IllegalStateException("The data key store " + DataKeyStore.PROPERTY + " already holds a "
                            + "different key for checkout " + checkoutId + " than personal_data_keys: is it another "
                            + "database's store? Nothing was changed for this checkout.");
                }
                moved += jdbc.update("UPDATE personal_data_keys SET data_key = NULL WHERE checkout_id = ? AND data_key = ?",
                        checkoutId, key);
            }
        } while (batch.size() == BATCH);
        if (moved > 0) {
            // The cleared values' old row versions would stay in the table's pages; rewriting the table drops them
            // from the live files (the WAL and backups from before keep them until they expire: docs/security.md).
            try {
                jdbc.execute("VACUUM FULL personal_data_keys");
            } catch (DataAccessException e) {
                log.warn("Could not rewrite personal_data_keys after moving its keys out ({}); run VACUUM FULL "
                        + "personal_data_keys as its owner", e.getMostSpecificCause().getMessage());
            }
        }
        return moved;
    }

    private int sealRecipients(String table, String idColumn, String plainOnes) {
        int sealed = 0;
        int before;
        List<Map<String, Object>> batch;
        do {
            before = sealed;
            batch = jdbc.queryForList(plainOnes);
            for (Map<String, Object> row : batch) {
                String plain = (String) row.get("recipient");
                String kept = vault.sealedCopy((String) row.get("checkout_id"), PersonalDataVault.EMAIL, plain)
                        .orElse(PersonalDataVault.ERASED);
                sealed += jdbc.update("UPDATE " + table + " SET recipient = ? WHERE " + idColumn + " = ? AND recipient = ?",
                        kept, row.get("id"), plain);
            }
        } while (batch.size() == BATCH && sealed > before); // a batch changed under us entirely: the next start goes on
        return sealed;
    }
}
