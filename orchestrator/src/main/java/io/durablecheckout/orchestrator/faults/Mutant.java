package io.durablecheckout.orchestrator.faults;

import io.durablecheckout.activities.ResourceMutants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Deliberate bugs, off unless {@code checkout.fault-injection.mutant} names them (comma-separated): the fault matrix
 * runs against each to prove that its effect checks fail when the product repeats a side effect
 * ({@code FaultMatrixIT}'s mutant runs). Part of the product for the same reason as the crash points
 * (docs/decisions.md, 17): the artifact that ships is the one tested.
 */
enum Mutant {
    /** Payments ignore a recorded outcome: a redelivered intent calls the provider again. */
    CALL_PROVIDER_AFTER_OUTCOME,
    /** Receipts ignore a message recorded as sent: a redelivered intent sends it again. */
    SEND_MESSAGE_AGAIN,
    /** Receipts hand each message to the mail service twice, in one attempt. */
    SEND_MESSAGE_TWICE,
    /** The Stripe adapter creates a PaymentIntent under a key per call: a repeated authorization charges again. */
    STRIPE_KEY_PER_CALL,
    /** Payments capture under a fresh key per attempt: a capture asked again after a timeout takes money again. */
    CAPTURE_KEY_PER_ATTEMPT;

    public String slug() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Set<Mutant> parse(String value) {
        Set<Mutant> on = EnumSet.noneOf(Mutant.class);
        if (value == null) {
            return on;
        }
        for (String part : value.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            on.add(Arrays.stream(values()).filter(m -> m.slug().equals(p) || m.name().equalsIgnoreCase(p)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("unknown mutant '" + p + "' in"
                            + " checkout.fault-injection.mutant; one of "
                            + Arrays.stream(values()).map(Mutant::slug).toList())));
        }
        return on;
    }

    /** The switch the activity resources consult (their {@link ResourceMutants} seam, no mutant by default). */
    @Configuration(proxyBeanMethods = false)
    public static class Switches {

        private static final Logger log = LoggerFactory.getLogger(Mutant.class);

        @Bean
        public ResourceMutants resourceMutants(FaultInjectionProperties properties) {
            Set<Mutant> on = parse(properties.mutant());
            if (on.isEmpty()) {
                return ResourceMutants.NONE;
            }
            log.warn("FAULT INJECTION: mutants switched on, this process repeats side effects on purpose: {}", on);
            return new ResourceMutants() {
                @Override
                public boolean callProviderAfterOutcome() {
                    return on.contains(CALL_PROVIDER_AFTER_OUTCOME);
                }

                @Override
                public boolean sendMessageAgain() {
                    return on.contains(SEND_MESSAGE_AGAIN);
                }

                @Override
                public boolean sendMessageTwice() {
                    return on.contains(SEND_MESSAGE_TWICE);
                }

                @Override
                public boolean captureKeyPerAttempt() {
                    return on.contains(CAPTURE_KEY_PER_ATTEMPT);
                }

                @Override
                public boolean stripeKeyPerCall() {
                    return on.contains(STRIPE_KEY_PER_CALL);
                }
            };
        }
    }
}
