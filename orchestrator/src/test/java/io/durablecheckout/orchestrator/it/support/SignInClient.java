package io.durablecheckout.orchestrator.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One dashboard sign-in as a browser makes it (the form's page, then its POST with the CSRF token and the session
 * cookie), with the headers of the proxy in front: {@code X-Forwarded-For} names the client, {@code
 * X-Forwarded-Proto: https} says it came over TLS (the test context trusts them from loopback, IntegrationTestBase).
 * Each call is a fresh browser: no cookie is kept between calls.
 */
public final class SignInClient {

    private static final Pattern CSRF_INPUT = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"");
    private static final Pattern SESSION = Pattern.compile("JSESSIONID=([^;]+)");

    private final HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private final String base;

    public SignInClient(int port) {
        this.base = "http://localhost:" + port;
    }

    /** The answer to the login POST (its Set-Cookie included). */
    public HttpApi.Response signIn(String source, boolean overTls, String account, String key) {
        Map<String, String> proxy = new LinkedHashMap<>();
        if (source != null) proxy.put("X-Forwarded-For", source);
        if (overTls) proxy.put("X-Forwarded-Proto", "https");
        HttpApi.Response page = send(HttpRequest.newBuilder(URI.create(base + "/login")).GET(), proxy);
        Matcher csrf = CSRF_INPUT.matcher(page.body());
        Matcher session = SESSION.matcher(String.valueOf(page.header("Set-Cookie")));
        if (!csrf.find() || !session.find()) {
            throw new IllegalStateException("no CSRF token or session on the login page: " + page);
        }
        String form = "username=" + enc(account) + "&password=" + enc(key) + "&_csrf=" + enc(csrf.group(1));
        proxy.put("Cookie", "JSESSIONID=" + session.group(1));
        return send(HttpRequest.newBuilder(URI.create(base + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)), proxy);
    }

    /** An API call with a bearer key, from {@code source}. */
    public HttpApi.Response api(String source, String method, String path, String key, String json) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key)
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) b.header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString());
        return send(b, Map.of("X-Forwarded-For", source));
    }

    private HttpApi.Response send(HttpRequest.Builder b, Map<String, String> headers) {
        headers.forEach(b::header);
        try {
            HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new HttpApi.Response(r.statusCode(), r.headers().map(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
