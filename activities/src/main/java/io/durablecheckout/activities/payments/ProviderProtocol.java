package io.durablecheckout.activities.payments;

import tools.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;

/**
 * The payment provider's HTTP protocol, spoken by {@link HttpPaymentProvider} and implemented by the simulator
 * ({@code io.durablecheckout.activities.simulator}). JSON bodies; {@code {url}} is
 * {@code checkout.payments.provider-url}.
 * <pre>
 * POST {url}/v1/authorizations                       Idempotency-Key: &lt;operationId&gt;  (must equal body.operationId)
 *   body {operationId, amountMinor, currency, paymentToken, tenantId}  (tenantId: the merchant, echoed in webhooks)
 *   200 {operationId, status: AUTHORIZED|DECLINED|PENDING|REQUIRES_ACTION, reference, reason, nextAction}
 *   REQUIRES_ACTION: the customer must act first (3-D Secure); nextAction is a JSON object for the client (e.g.
 *       {type: redirect_to_url, redirect_to_url: {url}}); the provider's webhook brings the decision
 *   503 provider unavailable: nothing was recorded, safe to send again
 *   The provider deduplicates by operation id: a repeated POST returns the recorded result and never re-decides.
 *
 * GET  {url}/v1/authorizations/{operationId}
 *   200 same body as above (PENDING while the customer has not acted);  404 {operationId, status: NOT_FOUND} = the
 *   provider never recorded the operation
 *   (a 404 without that body, e.g. a wrong URL, is not proof of absence and is treated as a failed lookup)
 *
 * POST {url}/v1/authorizations/{operationId}/void    Idempotency-Key: &lt;void operation id&gt;
 * POST {url}/v1/authorizations/{operationId}/refund  Idempotency-Key: &lt;refund operation id&gt;
 *   body {operationId: &lt;void/refund operation id&gt;, amountMinor, currency}
 *   200 {operationId, authorizationOperationId, status: VOIDED|REFUNDED, reference, reason}
 *   409 {..., status: REJECTED, reason} the authorization is not in a state that allows it
 *   503 provider unavailable. A repeated key returns the recorded answer, so retrying is safe.
 *   Voiding an operation the provider never saw records it as voided-before-authorization: a late authorization
 *   request under that id is then DECLINED, so a compensation can never be overtaken by the effect it undoes.
 *
 * POST {url}/v1/authorizations/{operationId}/capture Idempotency-Key: &lt;capture operation id&gt;
 *   body {operationId: &lt;capture operation id&gt;, amountMinor, currency}  (at most the authorized amount)
 *   200 {operationId, authorizationOperationId, status: CAPTURED, reference, reason, amountMinor, currency}
 *   200 {..., status: DECLINED, reason} / 409 {..., status: REJECTED, reason}: refused for good (capture declined;
 *       the hold voided, lapsed or already captured under another key; the amount above the authorized one)
 *   503 provider unavailable: nothing was recorded. A repeated key returns the recorded answer, never a second
 *   capture; at most one capture per authorization, and a void after it is REJECTED.
 * </pre>
 * Operation ids contain '/' (checkout id / step slug). They travel as a path suffix: the '/' separators stay
 * literal (servers commonly reject an encoded slash), every other reserved character is percent-encoded.
 */
public final class ProviderProtocol {

    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    public static final String AUTHORIZATIONS = "/v1/authorizations";

    public static final String AUTHORIZED = "AUTHORIZED";
    public static final String DECLINED = "DECLINED";
    public static final String PENDING = "PENDING";
    public static final String REQUIRES_ACTION = "REQUIRES_ACTION";
    public static final String NOT_FOUND = "NOT_FOUND";
    public static final String VOIDED = "VOIDED";
    public static final String REFUNDED = "REFUNDED";
    public static final String REJECTED = "REJECTED";
    public static final String CAPTURED = "CAPTURED";

    private ProviderProtocol() {
    }

    public record AuthorizationRequest(String operationId, long amountMinor, String currency, String paymentToken,
                                       String tenantId) {
    }

    /** @param nextAction REQUIRES_ACTION only: what the client shows the customer (a JSON object) */
    public record AuthorizationResponse(String operationId, String status, String reference, String reason,
                                        JsonNode nextAction) {

        public AuthorizationResponse(String operationId, String status, String reference, String reason) {
            this(operationId, status, reference, reason, null);
        }
    }

    public record CompensationRequest(String operationId, Long amountMinor, String currency) {
    }

    public record CompensationResponse(String operationId, String authorizationOperationId, String status,
                                       String reference, String reason) {
    }

    /** The answer to a capture; {@code amountMinor} and {@code currency}: what was taken (CAPTURED only). */
    public record CaptureResponse(String operationId, String authorizationOperationId, String status,
                                  String reference, String reason, Long amountMinor, String currency) {
    }

    /** Percent-encodes an operation id for use as a path suffix, keeping its '/' separators. */
    public static String pathOf(String operationId) {
        StringBuilder out = new StringBuilder();
        for (byte b : operationId.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
