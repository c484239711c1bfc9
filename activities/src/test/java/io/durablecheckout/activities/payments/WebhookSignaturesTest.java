package io.durablecheckout.activities.payments;

import com.standardwebhooks.Webhook;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Standard Webhooks through the official library: what it signs verifies, several secrets and signatures rotate. */
class WebhookSignaturesTest {

    private static final String NEW = "whsec_" + Base64.getEncoder().encodeToString("n".repeat(32).getBytes(StandardCharsets.US_ASCII));
    private static final String OLD = "an-older-plain-secret-of-32-characters-or-more";
    private static final String BODY = "{\"eventId\":\"evt-1\",\"status\":\"AUTHORIZED\"}";

    private static Map<String, List<String>> headers(String id, long ts, String signature) {
        return Map.of("Webhook-Id", List.of(id), "webhook-timestamp", List.of(Long.toString(ts)),
                "webhook-signature", List.of(signature));
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    @Test
    void aNotificationSignedByTheLibraryVerifiesUnderEitherSecretWhileTheyRotate() throws Exception {
        long ts = now();
        String byLibrary = new Webhook(NEW).sign("evt-1", ts, BODY);
        assertThat(WebhookSignatures.verify(List.of(NEW, OLD), headers("evt-1", ts, byLibrary), bytes(BODY)))
                .contains(new WebhookSignatures.Verified("evt-1", ts, false));
        // the receiver still accepts the old secret; the sender signs with both at once
        String both = WebhookSignatures.sign(List.of(NEW, OLD), "evt-1", ts, BODY);
        assertThat(both.split(" ")).hasSize(2).allMatch(s -> s.startsWith("v1,"));
        assertThat(WebhookSignatures.verify(List.of(OLD), headers("evt-1", ts, both), bytes(BODY))).isPresent();
        assertThat(WebhookSignatures.verify(List.of(NEW), headers("evt-1", ts, both), bytes(BODY))).isPresent();
    }

    /**
     * Issue 52, Build 3: a raw secret (as the README's {@code openssl rand -base64 32} makes) is shown to integrators
     * as {@code whsec_} + base64 of its bytes; the library's default constructor signs with that what the product,
     * still configured with the raw secret, verifies. A whsec_ secret is shown as it is.
     */
    @Test
    void aRawSecretShownInTheStandardsFormSignsWithTheDefaultConstructorWhatTheRawSecretVerifies() throws Exception {
        String raw = "q83vEjRWeJq8ZM3uEjRWeJq8ZM3uEjRWeJq8ZM3uEjQ="; // base64 text, used as its UTF-8 bytes
        String shown = WebhookSignatures.integratorForm(raw);
        assertThat(shown).startsWith("whsec_").isEqualTo("whsec_"
                + Base64.getEncoder().encodeToString(raw.getBytes(StandardCharsets.UTF_8)));
        long ts = now();
        String byLibrary = new Webhook(shown).sign("evt-1", ts, BODY);
        assertThat(WebhookSignatures.verify(List.of(raw), headers("evt-1", ts, byLibrary), BODY.getBytes(StandardCharsets.UTF_8)))
                .isPresent();
        assertThat(WebhookSignatures.integratorForm(NEW)).isEqualTo(NEW);
    }

    @Test
    void forgedOrAlteredNotificationsDoNotVerify() {
        long ts = now();
        String good = WebhookSignatures.sign(NEW, "evt-1", ts, BODY);
        assertThat(WebhookSignatures.verify(List.of(OLD), headers("evt-1", ts, good), bytes(BODY))).isEmpty();
        assertThat(WebhookSignatures.verify(List.of(NEW), headers("evt-2", ts, good), bytes(BODY))).isEmpty();
        assertThat(WebhookSignatures.verify(List.of(NEW), headers("evt-1", ts + 1, good), bytes(BODY))).isEmpty();
        assertThat(WebhookSignatures.verify(List.of(NEW), headers("evt-1", ts, good), bytes(BODY + " "))).isEmpty();
        for (String junk : List.of("v1", "v1,", "", " ", "v2," + good.substring(3), "x,y,z")) {
            assertThat(WebhookSignatures.verify(List.of(NEW), headers("evt-1", ts, junk), bytes(BODY))).as(junk).isEmpty();
        }
        // not UTF-8: refused before the library reads it as text
        byte[] invalid = {'{', (byte) 0xC3, '}'};
        assertThat(WebhookSignatures.verify(List.of(NEW), headers("evt-1", ts,
                WebhookSignatures.sign(NEW, "evt-1", ts, new String(invalid, StandardCharsets.UTF_8))), invalid)).isEmpty();
        assertThat(WebhookSignatures.verify(List.of(NEW), Map.of(), bytes(BODY))).isEmpty();
    }

    @Test
    void aCorrectSignatureOutsideTheLibrarysWindowIsMarkedStale() {
        long old = now() - 600;
        String signature = WebhookSignatures.sign(NEW, "evt-1", old, BODY);
        assertThat(WebhookSignatures.verify(List.of(NEW), headers("evt-1", old, signature), bytes(BODY)))
                .contains(new WebhookSignatures.Verified("evt-1", old, true));
    }

    @Test
    void secretsAreCheckedAtStart() {
        assertThat(WebhookSecret.problem(NEW)).isNull();
        assertThat(WebhookSecret.problem(OLD)).isNull();
        assertThat(WebhookSecret.problem("short")).contains("shorter than");
        assertThat(WebhookSecret.problem("whsec_" + "!".repeat(40))).contains("not base64");
        assertThat(WebhookSecret.split(" " + NEW + ", " + OLD + " ")).containsExactly(NEW, OLD);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
