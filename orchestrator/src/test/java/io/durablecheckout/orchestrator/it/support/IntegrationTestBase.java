package io.durablecheckout.orchestrator.it.support;

import io.durablecheckout.orchestrator.CheckoutApplication;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The whole application on a real, embedded PostgreSQL (its own data directory per test JVM) behind a real HTTP port.
 * All integration tests share this one context: Spring caches it, so PostgreSQL starts once.
 */
@SpringBootTest(classes = CheckoutApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
                "checkout.simulator.timeout-delay=3s",
                "checkout.simulator.slow-delay=300ms",
                "checkout.payments.request-timeout=1s",
                "checkout.workflow.reconciliation-initial-delay=300ms",
                "checkout.workflow.retry-initial-delay=200ms",
                "checkout.workflow.reconciliation-max-lookups=3",
                "checkout.simulator.webhooks.enabled=true",
                "checkout.simulator.webhooks.duplicate=true",
                "checkout.simulator.webhooks.delay=2500ms", // after the client timeout and the first lookup: late webhooks
                "checkout.dashboard.stuck-after[manual_review]=3s", // DashboardBrowserIT: held past its threshold
                "checkout.workflow.hold-validity=20s", // CaptureIT: a deferred capture's hold lapses within the test
                // ThreeDSecureIT (only tok_3ds* ask for the customer): tok_3ds's customer authenticates after 5 s (its
                // webhook 2.5 s later), tok_3ds_abandoned's never, and the checkout gives up after 15 s
                "checkout.simulator.three-ds-delay=5s",
                "checkout.workflow.customer-action-timeout=15s",
                // As deployed behind the TLS proxy docs/security.md asks for: X-Forwarded-For and -Proto from loopback
                // are trusted, so FailedAuthenticationIT can come from other addresses and over "TLS".
                "checkout.security.trusted-proxies=127.0.0.1,::1",
                // The other tests send thousands of wrong keys and sign-ins on purpose, all from here; the throttle's
                // own test (FailedAuthenticationIT) comes from other addresses, with the product's defaults.
                "checkout.security.failed-authentication.exempt-sources=127.0.0.1,::1",
                // Stripe's webhook endpoint on too (WebhookSecurityIT); the payments still go to the simulator
                "checkout.payments.stripe.webhook-secret=" + IntegrationTestBase.STRIPE_WEBHOOK_SECRET,
        })
@Import(HeldWorkers.Config.class)
public abstract class IntegrationTestBase {

    /** A test value, not a secret of anyone's. */
    public static final String STRIPE_WEBHOOK_SECRET = "whsec_it_stripe_endpoint_0123456789abcdef";

    private static final Path DATA_DIR = createDataDir();

    @LocalServerPort
    protected int port;

    @Autowired
    protected JdbcTemplate jdbc;

    protected HttpApi api;

    @DynamicPropertySource
    public static void database(DynamicPropertyRegistry registry) {
        registry.add("checkout.embedded-postgres.data-dir", DATA_DIR::toString);
    }

    @BeforeEach
    public void client() {
        api = new HttpApi(port);
    }

    private static Path createDataDir() {
        try {
            Path target = Path.of("target");
            Files.createDirectories(target);
            return Files.createTempDirectory(target.toAbsolutePath(), "it-pg-");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * DESIGN.md's invariants over everything committed so far; call after each scenario. Given a few seconds: the
     * payments processor records a decision the checkout took from a notification shortly after the checkout did.
     */
    protected void assertInvariantsHold() {
        try {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .pollInterval(java.time.Duration.ofMillis(200))
                    .until(() -> new InvariantChecker(jdbc).violations().isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // reported below, with the evidence
        }
        org.assertj.core.api.Assertions.assertThat(new InvariantChecker(jdbc).violations()).isEmpty();
    }

    /**
     * Checkouts created so far, counted in the event store: written with the submission, unlike the read model's rows,
     * which follow on a tick and may still be arriving for earlier tests' checkouts.
     */
    protected long createdCheckouts() {
        // the hot table and the archive (RetentionIT moves a finished checkout's events there; its row stays)
        return count("SELECT count(*) FROM domain_events_all WHERE sequencenumber = 0 "
                + "AND payloadtype LIKE '%CheckoutCreatedEvent'");
    }

    protected long count(String sql, Object... args) {
        Long n = jdbc.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
