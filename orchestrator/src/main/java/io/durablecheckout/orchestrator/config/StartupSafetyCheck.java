package io.durablecheckout.orchestrator.config;

import io.durablecheckout.activities.payments.WebhookSecret;
import io.durablecheckout.activities.payments.stripe.StripeConfiguration;
import io.durablecheckout.activities.privacy.DataKeyStore;
import io.durablecheckout.activities.receipts.MailTransportConfiguration;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;

/**
 * Refuses to start, before any bean (or database connection) exists, a service on a configured PostgreSQL
 * ({@code spring.datasource.url}) that would run on demo settings: no webhook secret, no provider URL, no data key
 * store, demo keys, the provider simulator or the demo mail sink without an explicit opt-in; SMTP receipts without a
 * host or sender (refused on the embedded demo too). The embedded default (no datasource URL) is the zero-setup demo
 * and is not checked, except that a configured webhook secret must be long enough anywhere. One message names every
 * missing setting ({@link Analyzer} prints it instead of a stack trace); the process exits non-zero.
 */
@Component
public class StartupSafetyCheck implements BeanFactoryPostProcessor, EnvironmentAware {

    public static final String DEMO_OPT_IN = "checkout.demo.allow-with-external-database";
    public static final String SIMULATOR_OPT_IN = "checkout.simulator.allow-with-external-database";
    public static final String MAIL_SINK_OPT_IN = "checkout.mail.sink.allow-with-external-database";

    private Environment env;

    @Override
    public void setEnvironment(Environment environment) {
        this.env = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        List<String> problems = problems(env);
        if (!problems.isEmpty()) {
            throw new UnsafeConfigurationException(problems);
        }
    }

    /** Every setting that is missing or unsafe, as one line each; empty when the start may go on. */
    public static List<String> problems(Environment env) {
        List<String> problems = new ArrayList<>();
        String secret = env.getProperty(WebhookSecret.PROPERTY, "");
        for (String one : secret.isBlank() ? List.<String>of() : WebhookSecret.split(secret)) {
            String problem = WebhookSecret.problem(one);
            if (problem != null) {
                problems.add(WebhookSecret.PROPERTY + " (CHECKOUT_PAYMENTS_WEBHOOK_SECRET) holds a secret " + problem
                        + ": use a random value (e.g. whsec_$(openssl rand -base64 32))");
            }
        }
        boolean receipts = flag(env, "checkout.activities.enabled", true)
                && flag(env, "checkout.activities.receipts.enabled", true);
        String transport = env.getProperty(MailTransportConfiguration.TRANSPORT, "sink");
        if (receipts && "smtp".equals(transport)) {
            // wrong anywhere, the embedded demo included: the receipts would have nowhere to go
            if (env.getProperty("spring.mail.host", "").isBlank()) {
                problems.add("spring.mail.host (SPRING_MAIL_HOST) is not set: the SMTP server receipts and "
                        + "cancellation notices are sent through (" + MailTransportConfiguration.TRANSPORT + "=smtp)");
            }
            if (env.getProperty(MailTransportConfiguration.FROM, "").isBlank()) {
                problems.add(MailTransportConfiguration.FROM + " (CHECKOUT_MAIL_FROM) is not set: the sender address "
                        + "of receipts and cancellation notices");
            }
        } else if (receipts && !"sink".equals(transport)) {
            problems.add(MailTransportConfiguration.TRANSPORT + " is '" + transport + "': use smtp, or sink (the demo)");
        }
        boolean payments = flag(env, "checkout.activities.enabled", true)
                && flag(env, "checkout.activities.payments.enabled", true);
        boolean stripe = "stripe".equals(env.getProperty(StripeConfiguration.PROVIDER, "http"));
        if (payments && stripe && env.getProperty(StripeConfiguration.KEY_PROPERTY, "").isBlank()) {
            problems.add(StripeConfiguration.KEY_PROPERTY + " (CHECKOUT_PAYMENTS_STRIPE_API_KEY) is not set: the Stripe secret "
                    + "key the payments service calls Stripe with (" + StripeConfiguration.PROVIDER + "=stripe)");
        }
        if (env.getProperty("spring.datasource.url", "").isBlank()) {
            return problems; // the embedded demo
        }
        if (stripe && flag(env, "checkout.orchestrator.enabled", true)
                && env.getProperty(StripeConfiguration.SIGNING_PROPERTY, "").isBlank()) {
            problems.add(StripeConfiguration.SIGNING_PROPERTY + " (CHECKOUT_PAYMENTS_STRIPE_WEBHOOK_SECRET) is not set: "
                    + "the endpoint secret (whsec_…) Stripe signs its webhooks with (Stripe-Signature)");
        }
        if (receipts && "sink".equals(transport) && flag(env, "checkout.mail.sink.enabled", true)
                && !flag(env, MAIL_SINK_OPT_IN, false)) {
            problems.add(MailTransportConfiguration.TRANSPORT + " is sink (the default) on a configured database: "
                    + "receipts would be recorded, never delivered. Set " + MailTransportConfiguration.TRANSPORT
                    + "=smtp with spring.mail.host, or " + MAIL_SINK_OPT_IN + "=true to keep the demo mail sink on purpose");
        }
        boolean orchestrator = flag(env, "checkout.orchestrator.enabled", true);
        // the provider URL matters only where the payments service runs (split deployment: docs/scaling.md)
        boolean activities = flag(env, "checkout.activities.enabled", true)
                && flag(env, "checkout.activities.payments.enabled", true);
        boolean simulator = flag(env, "checkout.simulator.enabled", true);
        boolean demo = flag(env, "checkout.demo.enabled", true);
        boolean signsOrVerifies = orchestrator || (simulator && flag(env, "checkout.simulator.webhooks.enabled", false));
        if (signsOrVerifies && secret.isBlank() && !flag(env, WebhookSecret.GENERATE_PROPERTY, false)) {
            problems.add(WebhookSecret.PROPERTY + " (CHECKOUT_PAYMENTS_WEBHOOK_SECRET) is not set: the shared secret "
                    + "that signs payment provider notifications (at least " + WebhookSecret.MIN_LENGTH + " random characters)");
        }
        if (activities && !stripe && env.getProperty("checkout.payments.provider-url", "").isBlank()
                && !(simulator && flag(env, SIMULATOR_OPT_IN, false))) {
            problems.add("checkout.payments.provider-url (CHECKOUT_PAYMENTS_PROVIDER_URL) is not set: the payment "
                    + "provider's base URL (blank would mean the built-in simulator)");
        }
        // the data keys: the orchestrator seals, the payments and receipts services open (docs/security.md)
        boolean opensPersonalData = orchestrator || (flag(env, "checkout.activities.enabled", true)
                && (flag(env, "checkout.activities.payments.enabled", true)
                || flag(env, "checkout.activities.receipts.enabled", true)));
        if (opensPersonalData && env.getProperty(DataKeyStore.PROPERTY, "").isBlank()) {
            problems.add(DataKeyStore.PROPERTY + " (CHECKOUT_PERSONAL_DATA_KEY_STORE) is not set: the directory that "
                    + "holds the checkouts' data keys and the key checkout ids are derived with, outside PostgreSQL (one "
                    + "shared directory for every node; kept out "
                    + "of the database's backups, see docs/security.md)");
        }
        if (simulator && !flag(env, SIMULATOR_OPT_IN, false)) {
            problems.add("checkout.simulator.enabled is true (the default) on a configured database: set "
                    + "checkout.simulator.enabled=false, or " + SIMULATOR_OPT_IN + "=true to serve the unauthenticated "
                    + "provider simulator on purpose");
        }
        if (demo && orchestrator && !flag(env, DEMO_OPT_IN, false)) {
            problems.add("checkout.demo.enabled is true (the default) on a configured database: set "
                    + "checkout.demo.enabled=false (which also revokes the demo keys), or " + DEMO_OPT_IN
                    + "=true to keep the publicly documented demo keys on purpose");
        }
        return problems;
    }

    private static boolean flag(Environment env, String name, boolean fallback) {
        return env.getProperty(name, Boolean.class, fallback);
    }

    /** The start was refused; {@link #getMessage()} lists every reason. */
    public static class UnsafeConfigurationException extends IllegalStateException {
        private final List<String> problems;

        public UnsafeConfigurationException(List<String> problems) {
            super("Refusing to start on a configured database with demo or missing security settings:\n  - "
                    + String.join("\n  - ", problems));
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }

    /** Prints the refusal as Spring Boot's "APPLICATION FAILED TO START" report, without a stack trace. */
    public static class Analyzer extends AbstractFailureAnalyzer<UnsafeConfigurationException> {
        @Override
        protected FailureAnalysis analyze(Throwable rootFailure, UnsafeConfigurationException cause) {
            return new FailureAnalysis(cause.getMessage(), "Set the settings named above (environment variables or "
                    + "--name=value), or start without spring.datasource.url for the embedded demo. "
                    + "See the README's configuration table and docs/security.md.", cause);
        }
    }
}
