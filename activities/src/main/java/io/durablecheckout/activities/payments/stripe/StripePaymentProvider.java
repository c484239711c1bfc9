package io.durablecheckout.activities.payments.stripe;

import com.stripe.StripeClient;
import com.stripe.exception.ApiConnectionException;
import com.stripe.exception.ApiException;
import com.stripe.exception.AuthenticationException;
import com.stripe.exception.CardException;
import com.stripe.exception.IdempotencyException;
import com.stripe.exception.InvalidRequestException;
import com.stripe.exception.PermissionException;
import com.stripe.exception.RateLimitException;
import com.stripe.exception.StripeException;
import com.google.gson.JsonObject;
import com.stripe.model.PaymentIntent;
import com.stripe.net.ApiResource;
import com.stripe.model.Refund;
import com.stripe.model.StripeSearchResult;
import com.stripe.net.RequestOptions;
import com.stripe.param.PaymentIntentCancelParams;
import com.stripe.param.PaymentIntentCaptureParams;
import com.stripe.param.PaymentIntentConfirmParams;
import com.stripe.param.PaymentIntentCreateParams;
import com.stripe.param.PaymentIntentSearchParams;
import com.stripe.param.RefundCreateParams;
import io.durablecheckout.activities.ResourceMutants;
import io.durablecheckout.activities.payments.PaymentProvider;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@link PaymentProvider} on Stripe, through the official SDK (docs/integrations.md has the whole mapping).
 * <ul>
 *   <li>authorize: a PaymentIntent with {@code capture_method=manual}, created under the idempotency key
 *       {@code <op>:create} with the operation id in its metadata, recorded ({@code stripe_payment_intents}) before it
 *       is confirmed under {@code <op>:confirm}; {@code requires_capture} is authorized, a card error declined,
 *       {@code requires_action} (3-D Secure) the customer's action ({@code next_action} for the client),
 *       {@code processing} pending; a timeout, a 5xx or an idempotency
 *       conflict unknown, never declined; a rate limit or a refused key unavailable (not processed: retry);</li>
 *   <li>lookup: by the recorded intent id (works after Stripe's 24-hour idempotency window), else by a metadata
 *       search, which can lag: finding nothing is pending, never "not found";</li>
 *   <li>void: cancel the intent under the void operation's key; refund: a Refund under the refund operation's key (an
 *       intent not captured yet is cancelled instead: the hold is released, nothing was taken);</li>
 *   <li>capture: {@link #capture}: the intent's state first ({@code succeeded} is captured already), then a capture
 *       under the capture operation's key.</li>
 * </ul>
 */
public class StripePaymentProvider implements PaymentProvider {

    public static final String METADATA_OPERATION = "operation_id";
    public static final String METADATA_TENANT = "tenant_id";

    private final StripeClient stripe;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate ownTransaction;

    private final ResourceMutants mutants;

    public StripePaymentProvider(StripeClient stripe, JdbcTemplate jdbc, PlatformTransactionManager transactions) {
        this(stripe, jdbc, transactions, ResourceMutants.NONE);
    }

    public StripePaymentProvider(StripeClient stripe, JdbcTemplate jdbc, PlatformTransactionManager transactions,
                                 ResourceMutants mutants) {
        this.stripe = stripe;
        this.mutants = mutants;
        this.jdbc = jdbc;
        this.ownTransaction = new TransactionTemplate(transactions);
        // committed at once: the intent exists at Stripe whatever happens to the worker's transaction
        this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    @Override
    public AuthorizationAnswer authorize(OperationId operationId, Money amount, String paymentToken) {
        return authorize(operationId, amount, paymentToken, null);
    }

    @Override
    public AuthorizationAnswer authorize(OperationId operationId, Money amount, String paymentToken, String tenantId) {
        PaymentIntent intent;
        try {
            intent = recordedIntent(operationId).isPresent() && !mutants.stripeKeyPerCall() ? null
                    : create(operationId, amount, paymentToken, tenantId);
        } catch (StripeException e) {
            return failed("create", e);
        }
        String id = intent != null ? intent.getId() : recordedIntent(operationId).orElseThrow();
        if (intent != null) {
            ownTransaction.executeWithoutResult(tx -> jdbc.update("INSERT INTO stripe_payment_intents (operation_id,"
                    + " intent_id) VALUES (?, ?) ON CONFLICT (operation_id) DO "
                    + (mutants.stripeKeyPerCall() ? "UPDATE SET intent_id = excluded.intent_id" : "NOTHING"),
                    operationId.value(), id));
        }
        try {
            PaymentIntent current = intent != null ? intent : stripe.v1().paymentIntents().retrieve(id);
            if (!"requires_confirmation".equals(current.getStatus())) {
                return authorization(current); // confirmed before (a redelivery): its state is the answer
            }
            return authorization(stripe.v1().paymentIntents().confirm(id, PaymentIntentConfirmParams.builder().build(),
                    key(operationId.value() + ":confirm" + (mutants.stripeKeyPerCall() ? ":" + id : ""))));
        } catch (StripeException e) {
            return failed("confirm", e);
        }
    }

    private PaymentIntent create(OperationId operationId, Money amount, String paymentToken, String tenantId)
            throws StripeException {
        PaymentIntentCreateParams.Builder params = PaymentIntentCreateParams.builder()
                .setAmount(amount.minor())
                .setCurrency(amount.currency().toLowerCase(Locale.ROOT))
                .setCaptureMethod(PaymentIntentCreateParams.CaptureMethod.MANUAL)
                .setPaymentMethod(paymentToken)
                .addPaymentMethodType("card")
                .putMetadata(METADATA_OPERATION, operationId.value());
        if (tenantId != null) params.putMetadata(METADATA_TENANT, tenantId);
        // the mutant's key names the call, not the operation (a fault-matrix run proves the counts catch it)
        return stripe.v1().paymentIntents().create(params.build(), key(operationId.value() + ":create"
                + (mutants.stripeKeyPerCall() ? ":" + System.nanoTime() : "")));
    }

    /**
     * Looks the intent up first, so a capture made earlier (a timeout, a redelivery, another node) is answered from
     * Stripe's state and never attempted twice: {@code succeeded} is CAPTURED ({@code amount_received}),
     * {@code canceled} (voided, or the hold lapsed) DECLINED; only {@code requires_capture} is captured, with
     * {@code amount_to_capture} under the capture operation's key. A timeout is UNKNOWN, a card or state error DECLINED
     * with Stripe's code.
     */
    @Override
    public CaptureAnswer capture(OperationId authorizationOperationId, OperationId captureOperationId, Money amount) {
        try {
            Optional<String> id = intentOf(authorizationOperationId);
            if (id.isEmpty()) {
                return new CaptureAnswer(CaptureStatus.UNAVAILABLE, null, null, "no PaymentIntent found (yet) for "
                        + authorizationOperationId);
            }
            PaymentIntent current = stripe.v1().paymentIntents().retrieve(id.get());
            if (!mutants.captureKeyPerAttempt()) { // the mutant's fresh key goes to Stripe whatever the state
                if (!"requires_capture".equals(current.getStatus())) {
                    return captureAnswer(current);
                }
                if (current.getAmountCapturable() != null && amount.minor() > current.getAmountCapturable()) {
                    return new CaptureAnswer(CaptureStatus.DECLINED, current.getId(), null, "stripe capture: "
                            + amount.minor() + " above amount_capturable " + current.getAmountCapturable());
                }
            }
            return captureAnswer(stripe.v1().paymentIntents().capture(id.get(), PaymentIntentCaptureParams.builder()
                    .setAmountToCapture(amount.minor()).build(), key(captureOperationId.value())));
        } catch (StripeException e) {
            return captureFailed(e);
        }
    }

    private static CaptureAnswer captureAnswer(PaymentIntent intent) {
        return switch (intent.getStatus()) {
            case "succeeded" -> new CaptureAnswer(CaptureStatus.CAPTURED, intent.getId(), new Money(
                    intent.getAmountReceived() == null ? intent.getAmount() : intent.getAmountReceived(),
                    intent.getCurrency().toUpperCase(Locale.ROOT)), "intent succeeded");
            case "canceled" -> new CaptureAnswer(CaptureStatus.DECLINED, intent.getId(), null, "intent canceled"
                    + (intent.getCancellationReason() == null ? "" : ": " + intent.getCancellationReason()));
            // still moving at Stripe: asked again under the same key
            case "processing", "requires_capture" -> new CaptureAnswer(CaptureStatus.UNKNOWN, intent.getId(), null,
                    "intent " + intent.getStatus());
            // never authorized: nothing to capture
            default -> new CaptureAnswer(CaptureStatus.DECLINED, intent.getId(), null,
                    "not capturable: intent " + intent.getStatus());
        };
    }

    /** Stripe's errors for a capture: a timeout may have captured (unknown); a refusal of the request is for good. */
    static CaptureAnswer captureFailed(StripeException e) {
        String detail = describe("capture", e);
        if (e instanceof CardException || e instanceof InvalidRequestException) {
            return new CaptureAnswer(CaptureStatus.DECLINED, null, null, detail); // the card's or the intent's state
        }
        if (e instanceof RateLimitException || e instanceof AuthenticationException || e instanceof PermissionException
                || notConnected(e) || (e instanceof ApiException && Integer.valueOf(503).equals(e.getStatusCode()))) {
            return new CaptureAnswer(CaptureStatus.UNAVAILABLE, null, null, detail); // not processed: retry
        }
        // ApiConnectionException after connecting (a read timeout, a dropped connection), ApiException (a 5xx:
        // Stripe's outcome is indeterminate), IdempotencyException (the key in use): Stripe may have captured
        return new CaptureAnswer(CaptureStatus.UNKNOWN, null, null, detail);
    }

    /** No connection was made, so no request reached Stripe (refused, unknown host, connect timeout). */
    static boolean notConnected(StripeException e) {
        if (!(e instanceof ApiConnectionException)) return false;
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof java.net.ConnectException || t instanceof java.net.UnknownHostException
                    || t instanceof java.net.NoRouteToHostException) {
                return true;
            }
            if (t instanceof java.net.SocketTimeoutException && t.getMessage() != null
                    && t.getMessage().toLowerCase(Locale.ROOT).contains("connect")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public LookupAnswer lookup(OperationId authorizationOperationId) {
        try {
            Optional<String> recorded = recordedIntent(authorizationOperationId);
            PaymentIntent intent;
            if (recorded.isPresent()) {
                intent = stripe.v1().paymentIntents().retrieve(recorded.get());
            } else {
                List<PaymentIntent> found = search(authorizationOperationId);
                if (found.isEmpty()) {
                    // Stripe's search is eventually consistent: not finding it is no evidence that it does not exist
                    return new LookupAnswer(PaymentLookupOutcome.PENDING, null,
                            "no PaymentIntent found by metadata yet (search can lag)");
                }
                intent = found.get(0);
            }
            return lookupAnswer(intent);
        } catch (StripeException e) {
            return new LookupAnswer(PaymentLookupOutcome.LOOKUP_FAILED, null, describe("lookup", e));
        }
    }

    private static LookupAnswer lookupAnswer(PaymentIntent intent) {
        String status = intent.getStatus();
        return switch (status) {
            case "requires_capture", "succeeded" -> new LookupAnswer(PaymentLookupOutcome.AUTHORIZED, intent.getId(),
                    "intent " + status);
            case "canceled" -> new LookupAnswer(PaymentLookupOutcome.DECLINED, intent.getId(), "intent canceled");
            case "requires_payment_method" -> intent.getLastPaymentError() != null
                    ? new LookupAnswer(PaymentLookupOutcome.DECLINED, intent.getId(), declineDetail(intent))
                    : new LookupAnswer(PaymentLookupOutcome.PENDING, intent.getId(), "intent " + status);
            // created, never confirmed: no charge was attempted; the void that follows cancels it for good
            case "requires_confirmation" -> new LookupAnswer(PaymentLookupOutcome.NOT_FOUND, intent.getId(),
                    "intent never confirmed");
            default -> new LookupAnswer(PaymentLookupOutcome.PENDING, intent.getId(), "intent " + status);
        };
    }

    @Override
    public CompensationAnswer voidAuthorization(OperationId authorizationOperationId, OperationId voidOperationId,
                                                Money amount) {
        try {
            Optional<String> id = intentOf(authorizationOperationId);
            if (id.isEmpty()) {
                // nothing created under the operation as far as Stripe shows: an intent created but not recorded
                // cannot be confirmed any more (the checkout no longer authorizes), so nothing can be charged
                return new CompensationAnswer(true, null, "no PaymentIntent for " + authorizationOperationId);
            }
            return cancel(id.get(), voidOperationId);
        } catch (StripeException e) {
            return new CompensationAnswer(false, null, describe("void", e));
        }
    }

    private CompensationAnswer cancel(String intentId, OperationId operationId) throws StripeException {
        PaymentIntent current = stripe.v1().paymentIntents().retrieve(intentId);
        if ("canceled".equals(current.getStatus())) return new CompensationAnswer(true, intentId, "already canceled");
        if ("succeeded".equals(current.getStatus())) {
            return new CompensationAnswer(false, intentId, "intent captured: refund it instead");
        }
        PaymentIntent canceled = stripe.v1().paymentIntents().cancel(intentId, PaymentIntentCancelParams.builder().build(),
                key(operationId.value()));
        return new CompensationAnswer("canceled".equals(canceled.getStatus()), intentId, "intent " + canceled.getStatus());
    }

    @Override
    public CompensationAnswer refund(OperationId authorizationOperationId, OperationId refundOperationId, Money amount) {
        try {
            Optional<String> id = intentOf(authorizationOperationId);
            if (id.isEmpty()) return new CompensationAnswer(false, null, "no PaymentIntent found (yet) for "
                    + authorizationOperationId);
            PaymentIntent current = stripe.v1().paymentIntents().retrieve(id.get());
            if (!"succeeded".equals(current.getStatus())) {
                return cancel(id.get(), refundOperationId); // not captured: releasing the hold returns everything
            }
            Refund refund = stripe.v1().refunds().create(RefundCreateParams.builder().setPaymentIntent(id.get())
                    .setAmount(amount.minor()).build(), key(refundOperationId.value()));
            boolean done = "succeeded".equals(refund.getStatus()) || "pending".equals(refund.getStatus());
            return new CompensationAnswer(done, refund.getId(), "refund " + refund.getStatus());
        } catch (StripeException e) {
            return new CompensationAnswer(false, null, describe("refund", e));
        }
    }

    private Optional<String> intentOf(OperationId operationId) throws StripeException {
        Optional<String> recorded = recordedIntent(operationId);
        if (recorded.isPresent()) return recorded;
        return search(operationId).stream().findFirst().map(PaymentIntent::getId);
    }

    private Optional<String> recordedIntent(OperationId operationId) {
        return jdbc.queryForList("SELECT intent_id FROM stripe_payment_intents WHERE operation_id = ?", String.class,
                operationId.value()).stream().findFirst();
    }

    private List<PaymentIntent> search(OperationId operationId) throws StripeException {
        StripeSearchResult<PaymentIntent> result = stripe.v1().paymentIntents().search(PaymentIntentSearchParams
                .builder().setQuery("metadata['" + METADATA_OPERATION + "']:'" + operationId.value().replace("'", "\\'")
                        + "'").build());
        return result.getData() == null ? List.of() : result.getData();
    }

    private static AuthorizationAnswer authorization(PaymentIntent intent) {
        return switch (intent.getStatus()) {
            case "requires_capture", "succeeded" -> new AuthorizationAnswer(AuthorizationStatus.AUTHORIZED,
                    intent.getId(), "intent " + intent.getStatus());
            case "requires_payment_method", "canceled" -> new AuthorizationAnswer(AuthorizationStatus.DECLINED,
                    intent.getId(), declineDetail(intent));
            // 3-D Secure: the customer acts on next_action; the webhook (amount_capturable_updated, or payment_failed
            // or canceled) settles it
            case "requires_action" -> nextAction(intent)
                    .map(action -> new AuthorizationAnswer(AuthorizationStatus.ACTION_REQUIRED, intent.getId(),
                            "intent requires_action", action))
                    .orElseGet(() -> new AuthorizationAnswer(AuthorizationStatus.PENDING, intent.getId(),
                            "intent requires_action without a next_action"));
            // asynchronous methods: the bank acts; a webhook or a lookup settles it
            default -> new AuthorizationAnswer(AuthorizationStatus.PENDING, intent.getId(), "intent " + intent.getStatus());
        };
    }

    /** The intent's {@code next_action} as Stripe sent it (JSON text), for the client to show. */
    static Optional<String> nextAction(PaymentIntent intent) {
        JsonObject raw = intent.getRawJsonObject();
        if (raw != null && raw.get("next_action") instanceof JsonObject action) {
            return Optional.of(action.toString());
        }
        return intent.getNextAction() == null ? Optional.empty()
                : Optional.of(ApiResource.GSON.toJson(intent.getNextAction()));
    }

    private static String declineDetail(PaymentIntent intent) {
        if (intent.getLastPaymentError() == null) return "intent " + intent.getStatus();
        String code = intent.getLastPaymentError().getDeclineCode() != null
                ? intent.getLastPaymentError().getDeclineCode() : intent.getLastPaymentError().getCode();
        return "declined: " + code;
    }

    /** Stripe's errors, as "did it happen?": only a card error is a decline; nothing uncertain ever is. */
    static AuthorizationAnswer failed(String step, StripeException e) {
        if (e instanceof CardException card) {
            return new AuthorizationAnswer(AuthorizationStatus.DECLINED, null, "declined: "
                    + (card.getDeclineCode() != null ? card.getDeclineCode() : card.getCode()));
        }
        if (e instanceof RateLimitException || e instanceof AuthenticationException
                || e instanceof PermissionException) {
            return new AuthorizationAnswer(AuthorizationStatus.UNAVAILABLE, null, describe(step, e));
        }
        if (e instanceof InvalidRequestException invalid && "create".equals(step)) {
            // the payment method refused (missing, detached, unusable): the customer's, no retry changes it
            if ("payment_method".equals(invalid.getParam())
                    || (invalid.getCode() != null && invalid.getCode().startsWith("payment_method_"))) {
                return new AuthorizationAnswer(AuthorizationStatus.DECLINED, null, "declined: "
                        + (invalid.getCode() == null ? "invalid payment_method" : invalid.getCode()));
            }
            return new AuthorizationAnswer(AuthorizationStatus.UNAVAILABLE, null, describe(step, e));
        }
        // ApiConnectionException (timeout, dropped connection), ApiException (5xx), IdempotencyException (the key
        // in use or reused), an invalid confirm: Stripe may have acted
        return new AuthorizationAnswer(AuthorizationStatus.UNKNOWN, null, describe(step, e));
    }

    private static String describe(String step, StripeException e) {
        String kind = e instanceof ApiConnectionException ? "no answer" : e instanceof IdempotencyException
                ? "idempotency conflict" : e instanceof RateLimitException ? "rate limited"
                : e instanceof ApiException ? "Stripe error" : e.getClass().getSimpleName();
        return "stripe " + step + ": " + kind + (e.getStatusCode() == null ? "" : " (" + e.getStatusCode() + ")")
                + (e.getCode() == null ? "" : " " + e.getCode());
    }

    private static RequestOptions key(String idempotencyKey) {
        return RequestOptions.builder().setIdempotencyKey(idempotencyKey).build();
    }
}
