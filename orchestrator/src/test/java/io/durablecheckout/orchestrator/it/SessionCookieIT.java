package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.orchestrator.it.support.SignInClient;

import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23: the dashboard's session cookie had neither SameSite nor Secure. A real sign-in over real HTTP: the
 * cookie it sets is SameSite=Strict and HttpOnly, and Secure exactly when the request came over TLS (here: from the
 * trusted proxy with {@code X-Forwarded-Proto: https}).
 */
class SessionCookieIT extends IntegrationTestBase {

    @Test
    void theSessionCookieIsSameSiteStrictAndSecureOverTls() {
        SignInClient browser = new SignInClient(port);

        HttpApi.Response plain = browser.signIn(null, false, "operator", HttpApi.OPERATOR_KEY);
        assertThat(plain.status()).isEqualTo(302);
        assertThat(plain.header("Location")).endsWith("/dashboard");
        String cookie = plain.header("Set-Cookie");
        assertThat(cookie).as("a new session id at sign-in").startsWith("JSESSIONID=")
                .contains("; SameSite=Strict").contains("; HttpOnly").doesNotContain("Secure");

        HttpApi.Response tls = browser.signIn(null, true, "operator", HttpApi.OPERATOR_KEY);
        assertThat(tls.status()).isEqualTo(302);
        assertThat(tls.header("Location")).startsWith("https://").endsWith("/dashboard");
        assertThat(tls.header("Set-Cookie")).startsWith("JSESSIONID=")
                .contains("; SameSite=Strict").contains("; HttpOnly").contains("; Secure");
    }
}
