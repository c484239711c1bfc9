package io.durablecheckout.orchestrator.readmodel;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an operator or client sees of one checkout: its state, what each activity knows, and what it is waiting for.
 * A document (stored as JSONB), folded from the Checkout event stream by {@link CheckoutViewFolder}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CheckoutView {
    public String checkoutId;
    public String tenantId;
    public String state;
    /** Sequence number of the last event applied: the value for If-Match. */
    public long version;
    public boolean terminal;
    public Instant createdAt;
    public Instant updatedAt;
    /** When the checkout entered its current state (time in state, the dashboard's stuck filter). */
    public Instant stateSince;
    public Amount amount;
    public List<Item> items = new ArrayList<>();
    public String customerEmail;
    public String idempotencyKey;
    public boolean cancellationRequested;
    /** Who asked to cancel ({@code customer_request}, {@code operator_request}) and why, as last requested. */
    public String cancelReason;
    public String cancelDetail;
    /** When the payment's outcome first became unknown (a timeout); kept once known again, for the record. */
    public Instant paymentUnknownSince;
    /** When it completed: a cancellation after it (a refund) is not a second finish. */
    public Instant completedAt;
    /** on_confirmation or deferred (rules version 3 on; absent for checkouts created before capture was a step). */
    public String captureMode;
    /** When the authorization's hold lapses unless captured (rules version 3 on). */
    public Instant holdExpiresAt;
    /** What a capture took, and when; absent while nothing is captured. */
    public Amount captured;
    public Instant capturedAt;
    /** What refunds returned (operators' partial refunds and a cancel's refund), once the provider confirmed them. */
    public Amount refunded;
    /** A refund requested and not yet confirmed by the provider. */
    public Amount refunding;
    /** When an operator released (voided) the hold of a checkout completed before capture was a step. */
    public Instant holdReleasedAt;
    /** What the client must show the customer (3-D Secure), while the payment waits for them. */
    public CustomerAction customerAction;
    /** Why the checkout ended (cancelled) or is held (manual review). */
    public String reason;
    public String reasonDetail;
    public String providerReference;
    public Waiting waiting;
    public ManualReview manualReview;
    public Map<String, Activity> activities = new LinkedHashMap<>();
    public int staleResultsRejected;
    public int leasesExpired;
    /**
     * Events of this checkout that a processor could not handle and parked (dead letters), added when the view is
     * read, never stored: while any is parked the checkout is stuck in that processor until an operator acts.
     */
    public List<Parked> parked;
    /** Provider notifications kept as evidence while an operator or a compensation owned the checkout. */
    public List<HeldNotification> notificationsHeld;

    /**
     * @param nextAction the provider's next action, as it gave it (Stripe's {@code next_action}), as plain JSON values
     *                   (maps, lists, text)
     */
    public record CustomerAction(Object nextAction, String providerReference, Instant until) {
    }

    public record Amount(long minor, String currency) {
    }

    public record Item(String sku, int quantity) {
    }

    /**
     * @param reason       what the checkout is waiting for, in words
     * @param nextDeadline when something happens if nothing else does
     * @param onDeadline   what happens then
     * @param known        what is known for certain at this point
     * @param unknown      what is not known yet
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Waiting(String reason, Instant nextDeadline, String onDeadline, String known, String unknown) {
    }

    /** One processor's parked events of this checkout: the first failed with {@code cause}, the rest wait. */
    public record Parked(String processor, long events, String eventType, String cause, Instant since) {
    }

    /** @param outcome {@code authorized} or {@code declined}, as the provider notified it */
    public record HeldNotification(String notificationId, String outcome, String providerReference,
                                   Instant receivedAt) {
    }

    public record ManualReview(String blockedStep, String reason, String evidence) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Activity {
        public String operationId;
        public int attempt;
        public long fencingToken;
        public Instant leaseExpiresAt;
        /** in_flight, retry_scheduled, lease_expired, blocked; once done: succeeded, declined, unknown, inconclusive, ended */
        public String status;
        public String lastOutcome;
        public Instant retryAt;
    }
}
