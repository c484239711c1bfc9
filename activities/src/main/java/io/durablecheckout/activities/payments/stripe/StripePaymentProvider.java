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
import com.stripe.model.PaymentIntent;
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
 *       {@code requires_action} (3-D Secure) and {@code processing} pending; a timeout, a 5xx or an idempotency
 *       conflict unknown, never declined; a rate limit or a refused key unavailable (not processed: retry);</li>
 *   <li>lookup: by the recorded intent id (works after Stripe's 24-hour idempotency window), else by a metadata
 *       search, which can lag: finding nothing is pending, never "not found";</li>
 *   <li>void: cancel the intent under the void operation's key; refund: a Refund under the refund operation's key (an
 *       intent not captured yet is cancelled instead: the hold is released, nothing was taken);</li>
 *   <li>capture: {@link #capture}, under the capture operation's key (not wired into the workflow yet).</li>
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

    /** Captures an authorized intent under the capture operation's key (capture belongs at order confirmation). */
    public CompensationAnswer capture(OperationId authorizationOperationId, OperationId captureOperationId, Money amount) {
        try {
            Optional<String> id = intentOf(authorizationOperationId);
            if (id.isEmpty()) return new CompensationAnswer(false, null, "no PaymentIntent found (yet) for "
                    + authorizationOperationId);
            PaymentIntent captured = stripe.v1().paymentIntents().capture(id.get(), PaymentIntentCaptureParams.builder()
                    .setAmountToCapture(amount.minor()).build(), key(captureOperationId.value()));
            return new CompensationAnswer("succeeded".equals(captured.getStatus()), captured.getId(),
                    "intent " + captured.getStatus());
        } catch (StripeException e) {
            return new CompensationAnswer(false, null, describe("capture", e));
        }
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
            // 3-D Secure and asynchronous methods: the customer or the bank acts; a webhook or a lookup settles it
            default -> new AuthorizationAnswer(AuthorizationStatus.PENDING, intent.getId(), "intent " + intent.getStatus());
        };
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
        if (e instanceof InvalidRequestException && "create".equals(step)) {
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
