package io.durablecheckout.orchestrator.config;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** The mail transport's part of the production start check (the rest: StartupRefusalIT, on the packaged jar). */
class StartupSafetyCheckTest {

    /** A configured database with every other setting of a production start given. */
    private static MockEnvironment production() {
        return new MockEnvironment()
                .withProperty("spring.datasource.url", "jdbc:postgresql://db/checkout")
                .withProperty("checkout.payments.webhook-secret", "x".repeat(40))
                .withProperty("checkout.payments.provider-url", "https://provider.example")
                .withProperty("checkout.personal-data.key-store", "/var/lib/checkout/keys")
                .withProperty("checkout.simulator.enabled", "false")
                .withProperty("checkout.demo.enabled", "false");
    }

    @Test
    void smtpWithHostAndSenderStarts() {
        assertThat(StartupSafetyCheck.problems(production().withProperty("checkout.mail.transport", "smtp")
                .withProperty("spring.mail.host", "smtp.example").withProperty("checkout.mail.from", "r@shop.example")))
                .isEmpty();
    }

    @Test
    void smtpWithoutAHostIsRefusedNamingIt() {
        assertThat(StartupSafetyCheck.problems(production().withProperty("checkout.mail.transport", "smtp")
                .withProperty("checkout.mail.from", "r@shop.example")))
                .singleElement().asString().startsWith("spring.mail.host (SPRING_MAIL_HOST) is not set");
        // the embedded demo too: receipts would have nowhere to go
        assertThat(StartupSafetyCheck.problems(new MockEnvironment().withProperty("checkout.mail.transport", "smtp")))
                .anyMatch(p -> p.startsWith("spring.mail.host")).anyMatch(p -> p.startsWith("checkout.mail.from"));
    }

    @Test
    void stripeWithoutItsKeyOrWebhookSecretIsRefusedNamingThem() {
        MockEnvironment env = production().withProperty("checkout.payments.provider", "stripe")
                .withProperty(StartupSafetyCheck.MAIL_SINK_OPT_IN, "true");
        assertThat(StartupSafetyCheck.problems(env))
                .anyMatch(p -> p.startsWith("checkout.payments.stripe.api-key (CHECKOUT_PAYMENTS_STRIPE_API_KEY) is not set"))
                .anyMatch(p -> p.startsWith("checkout.payments.stripe.webhook-secret"));
        assertThat(StartupSafetyCheck.problems(env.withProperty("checkout.payments.stripe.api-key", "sk_live_x")
                .withProperty("checkout.payments.stripe.webhook-secret", "whsec_x"))).isEmpty();
    }

    @Test
    void theDemoMailSinkOnAConfiguredDatabaseNeedsAnOptIn() {
        assertThat(StartupSafetyCheck.problems(production())).singleElement().asString()
                .startsWith("checkout.mail.transport is sink");
        assertThat(StartupSafetyCheck.problems(production()
                .withProperty(StartupSafetyCheck.MAIL_SINK_OPT_IN, "true"))).isEmpty();
        // a receipts service that does not run sends nothing
        assertThat(StartupSafetyCheck.problems(production()
                .withProperty("checkout.activities.receipts.enabled", "false"))).isEmpty();
        assertThat(StartupSafetyCheck.problems(new MockEnvironment())).isEmpty();
    }
}
