package io.durablecheckout.orchestrator.web;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * The provider notifications' key of {@code checkout.payments.*} (the payments service's own are its
 * {@code PaymentsProperties}).
 *
 * @param webhookTolerance a notification signed longer ago than this (or this far in the future) is refused as a
 *                         replay (default 5 minutes)
 */
@ConfigurationProperties("checkout.payments")
public record WebhookProperties(Duration webhookTolerance) {

    public WebhookProperties {
        webhookTolerance = webhookTolerance != null ? webhookTolerance : Duration.ofMinutes(5);
    }
}
