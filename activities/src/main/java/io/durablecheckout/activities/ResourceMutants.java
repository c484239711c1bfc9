package io.durablecheckout.activities;

/**
 * Deliberate bugs for proving that the fault matrix's effect checks can fail (docs/decisions.md, fault injection
 * lives in the product, switched off). Every answer is false unless {@code checkout.fault-injection.mutant} switches
 * one on (see the orchestrator's {@code faults} package); never set in production.
 */
public interface ResourceMutants {

    ResourceMutants NONE = new ResourceMutants() {
    };

    /** The payments resource ignores an operation's recorded outcome and calls the provider again. */
    default boolean callProviderAfterOutcome() {
        return false;
    }

    /** The receipts resource ignores a message recorded as sent and sends it again. */
    default boolean sendMessageAgain() {
        return false;
    }

    /**
     * The Stripe adapter forgets the intent it recorded and creates under a key of each call's own (the bug of a key
     * that includes the attempt): a repeated authorization makes a second PaymentIntent and charges it.
     */
    default boolean stripeKeyPerCall() {
        return false;
    }

    /** The receipts resource hands every message to the mail service twice. */
    default boolean sendMessageTwice() {
        return false;
    }

    /**
     * The payments resource captures under a key of each attempt's own (the capture operation id plus the attempt
     * number) instead of the capture's operation id: a retried capture is a new one to the provider (and the Stripe
     * adapter skips its look-up of the intent's state, so the new key reaches Stripe).
     */
    default boolean captureKeyPerAttempt() {
        return false;
    }
}
