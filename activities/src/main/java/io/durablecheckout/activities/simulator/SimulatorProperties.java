package io.durablecheckout.activities.simulator;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * {@code checkout.simulator.*}: the payment provider simulator (a test double of an external provider).
 *
 * @param timeoutDelay    how long the timeout tokens and {@code tok_unknown} hold their response; longer than the
 *                        client's request timeout, so the client times out
 * @param slowDelay       how long {@code tok_slow} takes to answer (shorter than the client's timeout)
 * @param downForAttempts how many requests per operation id {@code tok_provider_down} refuses with 503
 * @param port            the loopback port of the simulator's own HTTP server ({@link SimulatorServer}); 0, the
 *                        default, takes any free one (several nodes on one machine each get theirs)
 * @param threeDsDelay    how long after its REQUIRES_ACTION answer {@code tok_3ds}'s customer authenticates (then
 *                        AUTHORIZED, and the webhook follows)
 */
@ConfigurationProperties("checkout.simulator")
public record SimulatorProperties(@DefaultValue("true") boolean enabled,
                                  @DefaultValue("5s") Duration timeoutDelay,
                                  @DefaultValue("1s") Duration slowDelay,
                                  @DefaultValue("2") int downForAttempts,
                                  @DefaultValue("0") int port,
                                  @DefaultValue Webhooks webhooks,
                                  @DefaultValue("2s") Duration threeDsDelay) {

    public SimulatorProperties {
        if (webhooks == null) webhooks = new Webhooks(false, null, null, false);
        if (threeDsDelay == null) threeDsDelay = Duration.ofSeconds(2);
    }

    /**
     * {@code checkout.simulator.webhooks.*}. Signed with the product's own secret
     * ({@link io.durablecheckout.activities.payments.WebhookSecret}); the simulator has none of its own.
     *
     * @param url       blank means this application's {@code /api/v1/payment-callbacks}, port resolved at send time
     * @param delay     how long after the decision the notification is sent
     * @param duplicate deliver every notification twice (receivers must deduplicate by eventId)
     */
    public record Webhooks(@DefaultValue("false") boolean enabled,
                           String url,
                           @DefaultValue("200ms") Duration delay,
                           @DefaultValue("false") boolean duplicate) {

        public Webhooks {
            if (delay == null) delay = Duration.ofMillis(200);
        }
    }
}
