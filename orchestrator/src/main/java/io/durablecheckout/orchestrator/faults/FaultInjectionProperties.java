package io.durablecheckout.orchestrator.faults;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code checkout.fault-injection.*}: every switch is off unless set; never set in production.
 *
 * @param crashAt      a {@link CrashPoint} slug: the process kills itself at that step boundary
 * @param crashAfter   ... the {@code crashAfter}-th time it reaches it (default 3)
 * @param mutant       comma-separated {@link Mutant} slugs: deliberate bugs, to prove the fault matrix can fail
 * @param parkStep     a step slug ({@code reserve-stock}, ...): park the worker that reads this step's intent
 * @param parkToken    ... with this fencing token (default 1)
 * @param parkDuration ... for this long (default 45 s, longer than the default lease of 30 s)
 */
@ConfigurationProperties("checkout.fault-injection")
record FaultInjectionProperties(String crashAt, Integer crashAfter, String mutant, String parkStep, Long parkToken,
                                Duration parkDuration) {

    FaultInjectionProperties {
        crashAt = crashAt == null || crashAt.isBlank() ? null : crashAt.trim();
        crashAfter = crashAfter != null ? crashAfter : 3;
        parkStep = parkStep == null || parkStep.isBlank() ? null : parkStep.trim();
        parkToken = parkToken != null ? parkToken : 1L;
        parkDuration = parkDuration != null ? parkDuration : Duration.ofSeconds(45);
    }
}
