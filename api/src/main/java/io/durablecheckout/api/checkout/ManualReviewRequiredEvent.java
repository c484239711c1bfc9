package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/**
 * Automation has run out of evidence or retries; an operator must decide. What is known travels in
 * {@code evidence}; {@code blockedStep} is the activity that could not be brought to an end.
 */
@Revision("1")
public record ManualReviewRequiredEvent(CheckoutId checkoutId, Step blockedStep, String reason, String evidence)
        implements CheckoutEvent {
}
