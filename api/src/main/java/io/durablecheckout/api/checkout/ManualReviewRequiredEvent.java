package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;

/** Automation has run out of evidence; an operator must decide. What is known travels in {@code evidence}. */
public record ManualReviewRequiredEvent(CheckoutId checkoutId, String reason, String evidence) implements CheckoutEvent {
}
