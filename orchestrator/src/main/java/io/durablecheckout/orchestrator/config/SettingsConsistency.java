package io.durablecheckout.orchestrator.config;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Refuses to start, before any bean exists (no database is started, no port opened), when settings contradict each
 * other: each is valid alone, but together they make the product repeat side effects or lose its guarantees. Every
 * message says which settings, their values, and what would go wrong.
 */
@Component
public class SettingsConsistency implements BeanFactoryPostProcessor, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        List<String> problems = problems(environment);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("Refusing to start: settings contradict each other:\n - "
                    + String.join("\n - ", problems));
        }
    }

    /** Defaults here are the ones the components use when a setting is absent. */
    public static List<String> problems(Environment env) {
        Binder binder = Binder.get(env);
        List<String> problems = new ArrayList<>();
        Duration connect = duration(binder, "checkout.payments.connect-timeout", Duration.ofSeconds(1));
        Duration request = duration(binder, "checkout.payments.request-timeout", Duration.ofSeconds(2));
        Duration providerCall = connect.plus(request);
        Duration idle = duration(binder, "checkout.datasource.idle-in-transaction-timeout", Duration.ofSeconds(15));
        Duration lease = duration(binder, "checkout.workflow.lease-duration", Duration.ofSeconds(30));
        Duration paymentLease = duration(binder, "checkout.workflow.payment-lease-duration", Duration.ofSeconds(30));

        // PostgreSQL counts 0 as "no limit".
        if (!idle.isZero() && providerCall.compareTo(idle) >= 0) {
            problems.add("checkout.payments.connect-timeout + request-timeout (" + connect + " + " + request
                    + ") must be shorter than checkout.datasource.idle-in-transaction-timeout (" + idle + "): the"
                    + " payments worker waits for the provider inside its transaction, so PostgreSQL would end the"
                    + " session mid-call and the retry would call the provider again");
        }
        if (paymentLease.compareTo(providerCall) <= 0) {
            problems.add("checkout.workflow.payment-lease-duration (" + paymentLease + ") must be longer than"
                    + " checkout.payments.connect-timeout + request-timeout (" + connect + " + " + request + "): the lease"
                    + " would expire while its owner still waits for the provider, and a new owner would call again");
        }
        if (lease.isNegative() || lease.isZero()) {
            problems.add("checkout.workflow.lease-duration (" + lease + ") must be positive");
        }
        backoff(problems, binder, "checkout.workflow.retry", Duration.ofSeconds(1), Duration.ofMinutes(1));
        backoff(problems, binder, "checkout.workflow.reconciliation", Duration.ofSeconds(2), Duration.ofMinutes(5));
        positive(problems, binder, "checkout.workflow.max-attempts", 8);
        positive(problems, binder, "checkout.workflow.reconciliation-max-lookups", 6);

        Duration claimTimeout = duration(binder, "checkout.processing.claim-timeout", Duration.ofSeconds(10));
        Duration extension = duration(binder, "checkout.processing.claim-extension-threshold", Duration.ofSeconds(2));
        if (extension.compareTo(claimTimeout) >= 0) {
            problems.add("checkout.processing.claim-extension-threshold (" + extension + ") must be shorter than"
                    + " checkout.processing.claim-timeout (" + claimTimeout + "): a processor's claims would lapse"
                    + " before it extends them, and another node would take over segments that are alive");
        }
        return problems;
    }

    private static void backoff(List<String> problems, Binder binder, String prefix, Duration initialDefault,
                                Duration maxDefault) {
        Duration initial = duration(binder, prefix + "-initial-delay", initialDefault);
        Duration max = duration(binder, prefix + "-max-delay", maxDefault);
        if (initial.isNegative() || initial.isZero()) {
            problems.add(prefix + "-initial-delay (" + initial + ") must be positive");
        } else if (initial.compareTo(max) > 0) {
            problems.add(prefix + "-initial-delay (" + initial + ") must not be longer than " + prefix + "-max-delay ("
                    + max + ")");
        }
    }

    private static void positive(List<String> problems, Binder binder, String name, int fallback) {
        int value = binder.bind(name, Integer.class).orElse(fallback);
        if (value < 1) {
            problems.add(name + " (" + value + ") must be at least 1");
        }
    }

    private static Duration duration(Binder binder, String name, Duration fallback) {
        return binder.bind(name, Duration.class).orElse(fallback);
    }
}
