package io.durablecheckout.activities;

import io.durablecheckout.api.values.Step;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.stereotype.Component;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The two counters every worker reports: {@code checkout.activity.executions{step,outcome}} and
 * {@code checkout.fencing.stale.rejected{resource}}. {@code step} is the step's slug (for example
 * {@code reserve-stock}); {@code outcome} is a lower-case word such as {@code reserved}, {@code duplicate} or
 * {@code stale}.
 * <p>
 * Each counter is resolved once and held: a registry lookup by name and tags on every call was a measurable share of
 * the workers' CPU (docs/decisions.md 55).
 */
@Component
public class ActivityMetrics {

    public static final String EXECUTIONS = "checkout.activity.executions";
    public static final String STALE_REJECTED = "checkout.fencing.stale.rejected";

    private final MeterRegistry registry;
    private final Map<String, Counter> executions = new ConcurrentHashMap<>();
    private final Map<String, Counter> staleRejections = new ConcurrentHashMap<>();

    public ActivityMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void executed(Step step, String outcome) {
        execution(step, outcome).increment();
    }

    public void staleRejected(String resource) {
        staleRejection(resource).increment();
    }

    /**
     * Registers, at zero, the series a worker can count: each outcome of {@code step} (lower-case, as
     * {@link IntentResults#outcomeTag} makes them), {@code duplicate} and {@code stale}, and the stale rejections of its
     * {@code resource}. Called by each worker when it is created, so every series exists from the start: a dashboard
     * tells "none happened" from "not counted", and {@code rate()} has a sample before the first event.
     */
    public void expect(Step step, Enum<?>[] outcomes, String resource) {
        for (Enum<?> outcome : outcomes) {
            execution(step, IntentReports.tag(outcome, false));
        }
        execution(step, "duplicate");
        execution(step, "stale");
        staleRejection(resource);
    }

    private Counter execution(Step step, String outcome) {
        return executions.computeIfAbsent(step.slug() + '\n' + outcome, k -> Counter.builder(EXECUTIONS)
                .description("Activity intents executed, by step and outcome")
                .tag("step", step.slug())
                .tag("outcome", outcome)
                .register(registry));
    }

    private Counter staleRejection(String resource) {
        return staleRejections.computeIfAbsent(resource, k -> Counter.builder(STALE_REJECTED)
                .description("Writes refused at a resource because a newer fencing token had been accepted")
                .tag("resource", resource)
                .register(registry));
    }
}
