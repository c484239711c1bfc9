package io.durablecheckout.orchestrator.config;

import io.durablecheckout.activities.payments.PaymentsProperties;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.durablecheckout.orchestrator.cluster.ClusterProperties;
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

    /**
     * The settings are bound to the same typed records the components use, so a default lives in one place (the
     * record) and this check sees exactly what the components will.
     */
    public static List<String> problems(Environment env) {
        Binder binder = Binder.get(env);
        PaymentsProperties payments = binder.bindOrCreate("checkout.payments", PaymentsProperties.class);
        DatabaseProperties database = binder.bindOrCreate("checkout.datasource", DatabaseProperties.class);
        WorkflowPolicy workflow = binder.bindOrCreate("checkout.workflow", WorkflowPolicy.class);
        ClusterProperties cluster = binder.bindOrCreate("checkout.processing", ClusterProperties.class);
        EventProcessingConfiguration.ProcessingProperties processing = binder.bindOrCreate("checkout.processing",
                EventProcessingConfiguration.ProcessingProperties.class);
        List<String> problems = new ArrayList<>();
        Duration connect = payments.connectTimeout();
        Duration request = payments.requestTimeout();
        Duration providerCall = connect.plus(request);
        Duration idle = database.idleInTransactionTimeout();
        Duration lease = workflow.leaseDuration();
        Duration paymentLease = workflow.paymentLeaseDuration();

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
        backoff(problems, "checkout.workflow.retry", workflow.retryInitialDelay(), workflow.retryMaxDelay());
        backoff(problems, "checkout.workflow.reconciliation", workflow.reconciliationInitialDelay(),
                workflow.reconciliationMaxDelay());
        positive(problems, "checkout.workflow.max-attempts", workflow.maxAttempts());
        positive(problems, "checkout.workflow.reconciliation-max-lookups", workflow.reconciliationMaxLookups());

        Duration claimTimeout = cluster.claimTimeout();
        Duration extension = processing.claimExtensionThreshold();
        if (extension.compareTo(claimTimeout) >= 0) {
            problems.add("checkout.processing.claim-extension-threshold (" + extension + ") must be shorter than"
                    + " checkout.processing.claim-timeout (" + claimTimeout + "): a processor's claims would lapse"
                    + " before it extends them, and another node would take over segments that are alive");
        }
        problems.addAll(io.durablecheckout.orchestrator.http.TrustedProxies.problems(env));
        return problems;
    }

    private static void backoff(List<String> problems, String prefix, Duration initial, Duration max) {
        if (initial.isNegative() || initial.isZero()) {
            problems.add(prefix + "-initial-delay (" + initial + ") must be positive");
        } else if (initial.compareTo(max) > 0) {
            problems.add(prefix + "-initial-delay (" + initial + ") must not be longer than " + prefix + "-max-delay ("
                    + max + ")");
        }
    }

    private static void positive(List<String> problems, String name, int value) {
        if (value < 1) {
            problems.add(name + " (" + value + ") must be at least 1");
        }
    }
}
