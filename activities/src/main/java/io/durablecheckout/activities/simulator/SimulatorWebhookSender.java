package io.durablecheckout.activities.simulator;

import io.durablecheckout.activities.payments.WebhookSecret;
import io.durablecheckout.activities.payments.WebhookSignatures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Sends the simulator's decision notifications ({@code checkout.simulator.webhooks.*}), signed as Standard Webhooks
 * ({@link WebhookSignatures}, with every configured secret while they rotate) at sending time, after a delay and optionally twice (the second copy a second later, so it
 * carries its own timestamp and signature, as a real provider's redelivery does). Fire-and-forget on a scheduler thread: the
 * simulator is a test double, and a real provider's webhooks are equally unreliable.
 */
@Component
@ConditionalOnProperty(name = "checkout.simulator.enabled", havingValue = "true", matchIfMissing = true)
public class SimulatorWebhookSender implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(SimulatorWebhookSender.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final SimulatorProperties.Webhooks settings;
    private final Environment environment;
    private final WebhookSecret secret;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "simulator-webhooks");
        thread.setDaemon(true);
        return thread;
    });

    public SimulatorWebhookSender(SimulatorProperties properties, Environment environment, WebhookSecret secret) {
        this.settings = properties.webhooks();
        this.environment = environment;
        this.secret = secret;
    }

    public boolean enabled() {
        return settings.enabled();
    }

    /** Schedules the notification for a decided authorization (no-op when webhooks are off). */
    void decided(SimulatorLedger.Authorization authorization) {
        if (!settings.enabled() || scheduler.isShutdown()) return; // stopping: see stopSending
        SimulatorWebhook webhook = new SimulatorWebhook(
                "sim-evt:" + authorization.operationId() + ":" + authorization.status(),
                authorization.operationId(), authorization.status(), authorization.reference(),
                authorization.tenantId(), authorization.amountMinor(), authorization.currency(),
                authorization.decidedAt().toString());
        String body = JSON.writeValueAsString(webhook);
        int copies = settings.duplicate() ? 2 : 1;
        for (int i = 0; i < copies; i++) {
            // Timestamps are whole seconds: a redelivery within the same second would be the same signature (a replay).
            scheduler.schedule(() -> send(webhook.eventId(), body), settings.delay().toMillis() + i * 1_100L,
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Runs {@code task} after {@code delay} on the sender's thread, webhooks on or off (the simulated customer's
     * authentication); dropped when stopping, like a webhook not yet sent. Not durable: a restart forgets it.
     */
    void later(Duration delay, Runnable task) {
        if (scheduler.isShutdown()) return;
        scheduler.schedule(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.warn("Simulator task failed: {}", e.toString());
            }
        }, delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void send(String id, String body) {
        try {
            long timestamp = System.currentTimeMillis() / 1000;
            HttpRequest request = HttpRequest.newBuilder(URI.create(url()))
                    .timeout(Duration.ofSeconds(2))
                    .header("Content-Type", "application/json")
                    .header(WebhookSignatures.ID_HEADER, id)
                    .header(WebhookSignatures.TIMESTAMP_HEADER, Long.toString(timestamp))
                    .header(WebhookSignatures.SIGNATURE_HEADER,
                            WebhookSignatures.sign(secret.values(), id, timestamp, body))
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                    .build();
            HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
            log.debug("Simulator webhook answered {}", response.statusCode());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Simulator webhook not delivered to {}: {}", url(), e.toString());
        }
    }

    private String url() {
        String configured = settings.url();
        if (configured != null && !configured.isBlank()) return configured;
        return "http://localhost:" + environment.getProperty("local.server.port",
                environment.getProperty("server.port", "8080")) + "/api/v1/payment-callbacks";
    }

    @Override
    public void destroy() {
        scheduler.shutdownNow();
    }

    /**
     * A stop begins: the notifications not yet sent are dropped (the server they go to is about to stop taking
     * requests; a real provider retries later, and reconciliation asks it anyway).
     */
    @org.springframework.context.event.EventListener(org.springframework.context.event.ContextClosedEvent.class)
    public void stopSending() {
        scheduler.shutdownNow();
    }
}
