package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationActionRequiredEvent;
import io.durablecheckout.api.activity.PaymentCaptureDeclinedEvent;
import io.durablecheckout.api.checkout.CustomerActionRequiredEvent;
import java.time.Instant;
import io.durablecheckout.api.activity.PaymentCaptureOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentCaptureFailedEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Workflow.Result;

/**
 * Reads an activity's report: which kind of {@link Result} it is, and the fact the checkout records for it. A step's
 * success is its {@link Workflow} row's report; here are only the results with rules of their own (a rejection, a
 * decline, an unknown outcome, a lookup's answer). Pure; what the result leads to is the table's.
 */
final class Results {

    /**
     * @param fact   the event that records the result, or {@code null}
     * @param reason a rejection's own cancellation reason, or {@code null}
     * @param detail a rejection's detail; for an unknown outcome, the last answer (said again with the next lookup)
     */
    record Outcome(Step step, Result result, CheckoutEvent fact, CancellationReason reason, String detail) {
        static Outcome of(Step step, Result result, CheckoutEvent fact) {
            return new Outcome(step, result, fact, null, null);
        }
    }

    private Results() {
    }

    /**
     * What {@code result} says. A lookup's answer is about the authorization, so its fact names the authorization's
     * operation and token ({@code authorization}), not the lookup's.
     */
    static Outcome read(ActivityResultEvent result, CheckoutId id, Lease authorization) {
        return read(result, id, authorization, null);
    }

    /**
     * As {@link #read(ActivityResultEvent, CheckoutId, Lease)}; a payment that needs the customer waits for them
     * until {@code customerActionUntil}.
     */
    static Outcome read(ActivityResultEvent result, CheckoutId id, Lease authorization, Instant customerActionUntil) {
        if (result instanceof StockReservationRejectedEvent r) {
            return new Outcome(r.step(), Result.FAILED, null, r.reason(), r.detail());
        } else if (result instanceof PaymentAuthorizationDeclinedEvent r) {
            return Outcome.of(r.step(), Result.FAILED,
                    new PaymentDeclinedEvent(id, r.operationId(), r.fencingToken(), r.reason()));
        } else if (result instanceof PaymentAuthorizationOutcomeUnknownEvent r) {
            // A timeout is unknown, never a decline: the provider is asked later under the same operation id.
            return new Outcome(r.step(), Result.UNKNOWN,
                    new PaymentOutcomeUnknownEvent(id, r.operationId(), r.fencingToken(), r.reason()), null, r.reason());
        } else if (result instanceof PaymentLookupAnsweredEvent r) {
            return lookup(r, id, authorization);
        } else if (result instanceof PaymentAuthorizationActionRequiredEvent r) {
            // neither authorized nor declined: the customer acts (3-D Secure), the provider's notification decides
            return Outcome.of(r.step(), Result.ACTION_REQUIRED, new CustomerActionRequiredEvent(id, r.operationId(),
                    r.fencingToken(), r.nextAction(), r.providerReference(), customerActionUntil));
        } else if (result instanceof PaymentCaptureDeclinedEvent r) {
            return new Outcome(r.step(), Result.FAILED,
                    new PaymentCaptureFailedEvent(id, r.operationId(), r.fencingToken(), r.reason()),
                    CancellationReason.CAPTURE_DECLINED, r.reason());
        } else if (result instanceof PaymentCaptureOutcomeUnknownEvent r) {
            // A capture timeout is unknown, never failed: asked again under the capture's own operation id, which the
            // provider answers from its record if the capture happened (never a second capture).
            return new Outcome(r.step(), Result.UNKNOWN, null, null, "capture outcome unknown: " + r.reason());
        }
        // the rest report a step done: its row says which fact records it
        Workflow.Row row = Workflow.reportedBy(result);
        if (row == null) {
            throw new IllegalStateException("Unhandled activity result " + result.getClass().getName());
        }
        return Outcome.of(row.step(), Result.SUCCEEDED, row.report().record().apply(id, result));
    }

    /** The payment was authorized (evidence other than the worker's own result), recorded under {@code authorization}. */
    static Outcome authorized(Step step, CheckoutId id, Lease authorization, String providerReference) {
        return Outcome.of(step, Result.SUCCEEDED, new PaymentAuthorizedEvent(id, authorization.operationId(),
                authorization.fencingToken(), providerReference));
    }

    /** The payment was not authorized ({@code result}: declined, or not found), recorded under {@code authorization}. */
    static Outcome declined(Step step, Result result, CheckoutId id, Lease authorization, String reason) {
        return Outcome.of(step, result, new PaymentDeclinedEvent(id, authorization.operationId(),
                authorization.fencingToken(), reason));
    }

    private static Outcome lookup(PaymentLookupAnsweredEvent r, CheckoutId id, Lease authorization) {
        return switch (r.outcome()) {
            case AUTHORIZED -> authorized(r.step(), id, authorization, r.providerReference());
            case DECLINED -> declined(r.step(), Result.FAILED, id, authorization,
                    "reconciliation: DECLINED" + describe(r.detail()));
            // The provider has no such authorization; taken as declined, but the operation id is voided first.
            case NOT_FOUND -> declined(r.step(), Result.NOT_FOUND, id, authorization,
                    "reconciliation: NOT_FOUND" + describe(r.detail()));
            case PENDING, LOOKUP_FAILED -> new Outcome(r.step(), Result.UNKNOWN, null, null,
                    r.outcome() + describe(r.detail()));
        };
    }

    /** Says what happened, as opposed to "try again" or "still not known" (a redelivery of which changes nothing). */
    static boolean isConclusive(ActivityResultEvent result) {
        if (result instanceof ActivityAttemptFailedEvent || result instanceof PaymentCaptureOutcomeUnknownEvent
                || result instanceof PaymentAuthorizationActionRequiredEvent) {
            return false;
        }
        if (result instanceof PaymentLookupAnsweredEvent answer) {
            return switch (answer.outcome()) {
                case AUTHORIZED, DECLINED, NOT_FOUND -> true;
                case PENDING, LOOKUP_FAILED -> false;
            };
        }
        return true;
    }

    private static String describe(String detail) {
        return detail == null || detail.isBlank() ? "" : " (" + detail + ")";
    }
}
