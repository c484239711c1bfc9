package io.durablecheckout.activities.payments;

import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.function.Supplier;

/**
 * The shared secret (or secrets, while they rotate) of provider notifications ({@link WebhookSignatures}). There is no built-in value: it is
 * {@value #PROPERTY}; only the embedded demo (no {@code spring.datasource.url}) or an explicit
 * {@value #GENERATE_PROPERTY}{@code =true} lets the service generate one, 256 random bits in the standard's form
 * ({@code whsec_} + base64; a demo database from before keeps its older plain value, which verifies as before) stored once in the
 * database ({@code generated_secrets}), so every node on that database and the demo's simulator agree on it and a
 * restart keeps it. Resolved on first use, after Flyway has created the table.
 */
public final class WebhookSecret {

    public static final String PROPERTY = "checkout.payments.webhook-secret";
    public static final String GENERATE_PROPERTY = "checkout.demo.generate-webhook-secret";
    /** Shorter secrets are refused at startup: a guessable HMAC key is no key. */
    public static final int MIN_LENGTH = 32;
    private static final String NAME = "payment-webhook-secret";

    private final Supplier<String> source;
    private volatile String value;

    public WebhookSecret(Supplier<String> source) {
        this.source = source;
    }

    public static WebhookSecret of(String value) {
        return new WebhookSecret(() -> value);
    }

    /** From {@value #PROPERTY}, else generated for the demo as described above; else the start is refused. */
    public static WebhookSecret from(Environment env, Supplier<DataSource> dataSource) {
        String configured = env.getProperty(PROPERTY, "");
        if (!configured.isBlank()) {
            return of(configured);
        }
        if (!mayGenerate(env)) {
            return new WebhookSecret(() -> {
                throw new IllegalStateException(PROPERTY + " is not set");
            });
        }
        return new WebhookSecret(() -> generatedIn(new JdbcTemplate(dataSource.get())));
    }

    /** The embedded demo generates its secret; anything on a configured database only with explicit opt-in. */
    public static boolean mayGenerate(Environment env) {
        return env.getProperty("spring.datasource.url", "").isBlank()
                || env.getProperty(GENERATE_PROPERTY, Boolean.class, false);
    }

    /**
     * Every configured secret, the one to sign with first: {@value #PROPERTY} may list several, separated by spaces
     * or commas, while they rotate (every one verifies; the simulator signs with each, as a rotating sender does).
     */
    public java.util.List<String> values() {
        return split(value());
    }

    public static java.util.List<String> split(String configured) {
        return java.util.Arrays.stream(configured.trim().split("[\\s,]+")).filter(v -> !v.isEmpty()).toList();
    }

    /** Why one configured secret is unusable, or null: too short, or a {@code whsec_} value that is not base64. */
    public static String problem(String secret) {
        if (secret.length() < MIN_LENGTH) return "shorter than " + MIN_LENGTH + " characters";
        if (secret.startsWith(WebhookSignatures.SIGNING_KEY_PREFIX)) {
            try {
                byte[] key = java.util.Base64.getDecoder().decode(secret.substring(WebhookSignatures.SIGNING_KEY_PREFIX.length()));
                if (key.length < 24) return "a whsec_ key of " + key.length + " bytes (at least 24)";
            } catch (IllegalArgumentException e) {
                return "a whsec_ value that is not base64";
            }
        }
        return null;
    }

    public String value() {
        String v = value;
        if (v == null) {
            synchronized (this) {
                if (value == null) value = source.get();
                v = value;
            }
        }
        return v;
    }

    private static String generatedIn(JdbcTemplate jdbc) {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        // First writer wins; every node then reads the same value.
        jdbc.update("INSERT INTO generated_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                NAME, WebhookSignatures.SIGNING_KEY_PREFIX + Base64.getEncoder().encodeToString(random));
        return jdbc.queryForObject("SELECT value FROM generated_secrets WHERE name = ?", String.class, NAME);
    }

    @Override
    public String toString() {
        return "WebhookSecret[***]"; // never the value
    }
}
