package io.durablecheckout.activities.receipts;

import io.durablecheckout.api.values.OperationId;

/**
 * Port to whatever delivers mail. The call is the side effect: once made, the message may be out, whatever happens to
 * the caller's transaction afterwards. Adapters pass {@code idempotencyKey} to a service that deduplicates by it, so
 * a repeated call after a crash (always under the same key, the operation id) is not a second message.
 */
public interface MailPort {

    /**
     * @param operationId    the operation sending the message (its reference in the mail system)
     * @param idempotencyKey the key the mail system deduplicates by; the product always passes the operation id
     */
    void send(OperationId operationId, String idempotencyKey, OutboundMessage message);
}
