package io.durablecheckout.orchestrator.config;

import io.durablecheckout.activities.payments.WebhookSecret;
import io.durablecheckout.activities.payments.WebhookSignatures;
import io.durablecheckout.orchestrator.web.NotificationSignatures;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The generic HTTP provider's notifications: Standard Webhooks, verified by the payments service's code. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
class WebhookVerificationConfiguration {

    @Bean
    StandardWebhooks notificationSignatures(WebhookSecret secret) {
        return new StandardWebhooks(secret);
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
                    .map(v -> new Signed(v.id(), v.epochSeconds(), v.stale()));
        }

        @Override
        public List<String> headers() {
            return List.of(WebhookSignatures.ID_HEADER, WebhookSignatures.TIMESTAMP_HEADER,
                    WebhookSignatures.SIGNATURE_HEADER);
        }
    }
}
