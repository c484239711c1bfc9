package io.durablecheckout.orchestrator.config;

import io.durablecheckout.activities.payments.WebhookSecret;
import io.durablecheckout.activities.payments.WebhookSignatures;
import io.durablecheckout.activities.payments.stripe.StripeConfiguration;
import io.durablecheckout.activities.payments.stripe.StripeWebhooks;
import io.durablecheckout.orchestrator.web.WebhookProperties;
import org.springframework.core.env.Environment;
import io.durablecheckout.orchestrator.web.NotificationSignatures;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How provider notifications are verified, by the payments service's code: the generic HTTP provider's as Standard
 * Webhooks; Stripe's ({@code Stripe-Signature}) where {@value StripeConfiguration#WEBHOOK_SECRET} is set.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
class WebhookVerificationConfiguration {

    @Bean
    StandardWebhooks notificationSignatures(WebhookSecret secret) {
        return new StandardWebhooks(secret);
    }

    @Bean
    @ConditionalOnProperty(name = StripeConfiguration.SIGNING_PROPERTY)
    NotificationSignatures stripeNotificationSignatures(Environment env, WebhookProperties properties) {
        String secret = env.getRequiredProperty(StripeConfiguration.SIGNING_PROPERTY);
        long tolerance = properties.webhookTolerance().toSeconds();
        return new NotificationSignatures() {
            @Override
            public Optional<Signed> verify(Map<String, List<String>> headers, byte[] body) {
                List<String> header = headers.get(StripeWebhooks.SIGNATURE_HEADER);
                String payload = new String(body, java.nio.charset.StandardCharsets.UTF_8);
                return StripeWebhooks.verify(secret, payload, header == null ? null : header.get(0), tolerance)
                        .map(v -> new Signed(v.eventId(), v.epochSeconds(), v.stale(), v.notification()));
            }

            @Override
            public List<String> headers() {
                return List.of(StripeWebhooks.SIGNATURE_HEADER);
            }

            @Override
            public String scheme() {
                return STRIPE;
            }
        };
    }

    /** Every configured secret verifies (rotation); resolved (for the demo: generated) at startup. */
    static final class StandardWebhooks implements NotificationSignatures, SmartInitializingSingleton {

        private final WebhookSecret secret;

        StandardWebhooks(WebhookSecret secret) {
            this.secret = secret;
        }

        @Override
        public void afterSingletonsInstantiated() {
            secret.value();
        }

        @Override
        public Optional<Signed> verify(Map<String, List<String>> headers, byte[] body) {
            return WebhookSignatures.verify(secret.values(), headers, body)
                    .map(v -> new Signed(v.id(), v.epochSeconds(), v.stale(), body));
        }

        @Override
        public String scheme() {
            return STANDARD_WEBHOOKS;
        }

        @Override
        public List<String> secretsForIntegrators() {
            return secret.values().stream().map(WebhookSignatures::integratorForm).toList();
        }

        @Override
        public List<String> headers() {
            return List.of(WebhookSignatures.ID_HEADER, WebhookSignatures.TIMESTAMP_HEADER,
                    WebhookSignatures.SIGNATURE_HEADER);
        }
    }
}
