package io.durablecheckout.orchestrator.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An operator signed in to the dashboard over plain HTTP: session cookie, CSRF token from /dashboard/api/me. */
public final class DashboardSession {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CSRF_INPUT = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"");

    private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final String base;
    private String csrfHeader;
    private String csrfToken;

    public DashboardSession(int port) {
        this.base = "http://localhost:" + port;
    }

    /** @return the status of the login POST's answer (302 either way) and where it sends the browser */
    public String signIn(String account, String key) {
        String page = send(HttpRequest.newBuilder(URI.create(base + "/login")).GET()).body();
        Matcher m = CSRF_INPUT.matcher(page);
        if (!m.find()) {
            throw new IllegalStateException("no CSRF token on the login page");
        }
        String form = "username=" + enc(account) + "&password=" + enc(key) + "&_csrf=" + enc(m.group(1));
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)));
        String location = r.headers().firstValue("Location").orElse("");
        if (!location.contains("error")) {
            JsonNode me = get("/dashboard/api/me").json();
            csrfHeader = me.path("csrf").path("headerName").asText();
            csrfToken = me.path("csrf").path("token").asText();
        }
        return location;
    }

    public HttpApi.Response get(String path) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + path)).GET());
        return new HttpApi.Response(r.statusCode(), r.headers().map(), r.body());
    }

    public HttpApi.Response post(String path, String json) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (csrfHeader != null) {
            b.header(csrfHeader, csrfToken);
        }
        HttpResponse<String> r = send(b);
        return new HttpApi.Response(r.statusCode(), r.headers().map(), r.body());
    }

    /** Signs out as the page's button does: a form POST to /logout with the CSRF token; returns where it redirects. */
    public String signOut() {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + "/logout"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("_csrf=" + enc(csrfToken))));
        return r.statusCode() + " " + r.headers().firstValue("Location").orElse("");
    }

    /** A POST without the CSRF token, as a forged cross-site request would arrive. */
    public HttpApi.Response postWithoutCsrf(String path, String json) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
        return new HttpApi.Response(r.statusCode(), r.headers().map(), r.body());
    }

    private HttpResponse<String> send(HttpRequest.Builder b) {
        try {
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
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

    public static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
