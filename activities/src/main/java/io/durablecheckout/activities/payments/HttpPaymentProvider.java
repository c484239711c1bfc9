package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.payments.ProviderProtocol.AuthorizationRequest;
import io.durablecheckout.activities.payments.ProviderProtocol.AuthorizationResponse;
import io.durablecheckout.activities.payments.ProviderProtocol.CaptureResponse;
import io.durablecheckout.activities.payments.ProviderProtocol.CompensationRequest;
import io.durablecheckout.activities.payments.ProviderProtocol.CompensationResponse;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import org.springframework.core.env.Environment;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

import static io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus.ACTION_REQUIRED;
import static io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus.AUTHORIZED;
import static io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus.DECLINED;
import static io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus.PENDING;
import static io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus.UNAVAILABLE;
import static io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus.UNKNOWN;

/**
 * {@link PaymentProvider} over real HTTP ({@link ProviderProtocol}). The mapping of failures is the point of this
 * class: only a failure that proves the request was never processed (connection refused, connect timeout, 503) is
 * "unavailable"; anything after the request may have left (request timeout, broken connection, 5xx, an answer we
 * cannot read) is "unknown", because the provider may have authorized.
 */
public class HttpPaymentProvider implements PaymentProvider {

    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private final Supplier<String> baseUrl;
    private final Duration requestTimeout;
    private final HttpClient client;

    public HttpPaymentProvider(Supplier<String> baseUrl, Duration connectTimeout, Duration requestTimeout) {
        this.baseUrl = Objects.requireNonNull(baseUrl);
        this.requestTimeout = Objects.requireNonNull(requestTimeout);
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Objects.requireNonNull(connectTimeout))
                .build();
    }

    /**
     * The port the simulator's own HTTP server publishes ({@code SimulatorServer.PORT_PROPERTY}); named here, not
     * imported, since the payments service must not depend on the simulator.
     */
    static final String SIMULATOR_PORT_PROPERTY = "local.checkout.simulator.port";

    /** Configured from {@code checkout.payments.*}; a blank URL means this application's own simulator. */
    public static HttpPaymentProvider from(PaymentsProperties properties, Environment environment) {
        String configured = properties.providerUrl();
        Supplier<String> url = configured != null && !configured.isBlank()
                ? () -> configured
                : new OwnSimulatorUrl(environment);
        return new HttpPaymentProvider(url,
                properties.connectTimeout() == null ? Duration.ofSeconds(1) : properties.connectTimeout(),
                properties.requestTimeout() == null ? Duration.ofSeconds(2) : properties.requestTimeout());
    }

    @Override
    public AuthorizationAnswer authorize(OperationId operationId, Money amount, String paymentToken) {
        return authorize(operationId, amount, paymentToken, null);
    }

    @Override
    public AuthorizationAnswer authorize(OperationId operationId, Money amount, String paymentToken, String tenantId) {
        String body = JSON.writeValueAsString(new AuthorizationRequest(operationId.value(), amount.minor(),
                amount.currency(), paymentToken, tenantId));
        Exchange exchange = send(() -> post(ProviderProtocol.AUTHORIZATIONS, operationId.value(), body));
        if (exchange.notDelivered()) return new AuthorizationAnswer(UNAVAILABLE, null, exchange.failure());
        if (exchange.maybeDelivered()) return new AuthorizationAnswer(UNKNOWN, null, exchange.failure());
        int status = exchange.status();
        if (status == 503 || status == 429) {
            return new AuthorizationAnswer(UNAVAILABLE, null, "provider unavailable (HTTP " + status + ")");
        }
        if (status >= 400 && status < 500) {
            // The provider refused the request as such: it did not process it.
            return new AuthorizationAnswer(UNAVAILABLE, null, "provider refused the request (HTTP " + status + ")");
        }
        if (status != 200) {
            return new AuthorizationAnswer(UNKNOWN, null, "provider answered HTTP " + status);
        }
        AuthorizationResponse answer = parse(exchange.body(), AuthorizationResponse.class);
        if (answer == null || !operationId.value().equals(answer.operationId())) {
            return new AuthorizationAnswer(UNKNOWN, null, "unreadable answer from provider");
        }
        switch (String.valueOf(answer.status())) {
            case ProviderProtocol.AUTHORIZED:
                return new AuthorizationAnswer(AUTHORIZED, answer.reference(), null);
            case ProviderProtocol.DECLINED:
                return new AuthorizationAnswer(DECLINED, answer.reference(),
                        answer.reason() == null ? "declined by provider" : answer.reason());
            case ProviderProtocol.PENDING:
                return new AuthorizationAnswer(PENDING, answer.reference(), "provider reports PENDING");
            case ProviderProtocol.REQUIRES_ACTION:
                // without an object to show the customer, nobody can act: as good as an answer we cannot read
                return answer.nextAction() != null && answer.nextAction().isObject()
                        ? new AuthorizationAnswer(ACTION_REQUIRED, answer.reference(), "provider requires the customer's action",
                                JSON.writeValueAsString(answer.nextAction()))
                        : new AuthorizationAnswer(UNKNOWN, null, "REQUIRES_ACTION without a nextAction object");
            default:
                return new AuthorizationAnswer(UNKNOWN, null, "unexpected provider status " + answer.status());
        }
    }

    @Override
    public LookupAnswer lookup(OperationId authorizationOperationId) {
        return lookup(authorizationOperationId, null);
    }

    @Override
    public LookupAnswer lookup(OperationId authorizationOperationId, OperationId lookupOperationId) {
        Exchange exchange = send(() -> {
            HttpRequest.Builder builder = HttpRequest.newBuilder(uri(ProviderProtocol.AUTHORIZATIONS + "/"
                            + ProviderProtocol.pathOf(authorizationOperationId.value())))
                    .timeout(requestTimeout)
                    .header("Accept", "application/json");
            if (lookupOperationId != null) {
                builder.header(ProviderProtocol.IDEMPOTENCY_KEY, lookupOperationId.value());
            }
            return builder.GET().build();
        });
        if (!exchange.delivered()) {
            return new LookupAnswer(PaymentLookupOutcome.LOOKUP_FAILED, null, exchange.failure());
        }
        AuthorizationResponse answer = parse(exchange.body(), AuthorizationResponse.class);
        boolean aboutThisOperation = answer != null && authorizationOperationId.value().equals(answer.operationId());
        if (exchange.status() == 404) {
            // Only the provider's own "never recorded" answer proves absence; a bare 404 may be a wrong URL.
            return aboutThisOperation && ProviderProtocol.NOT_FOUND.equals(answer.status())
                    ? new LookupAnswer(PaymentLookupOutcome.NOT_FOUND, null, "provider has no record of the operation")
                    : new LookupAnswer(PaymentLookupOutcome.LOOKUP_FAILED, null, "HTTP 404 without a provider answer");
        }
        if (exchange.status() != 200) {
            return new LookupAnswer(PaymentLookupOutcome.LOOKUP_FAILED, null,
                    "provider answered HTTP " + exchange.status());
        }
        if (!aboutThisOperation) {
            return new LookupAnswer(PaymentLookupOutcome.LOOKUP_FAILED, null, "unreadable answer from provider");
        }
        switch (String.valueOf(answer.status())) {
            case ProviderProtocol.AUTHORIZED:
                return new LookupAnswer(PaymentLookupOutcome.AUTHORIZED, answer.reference(), null);
            case ProviderProtocol.DECLINED:
                return new LookupAnswer(PaymentLookupOutcome.DECLINED, answer.reference(), answer.reason());
            case ProviderProtocol.PENDING, ProviderProtocol.REQUIRES_ACTION: // the customer has not acted yet
                return new LookupAnswer(PaymentLookupOutcome.PENDING, answer.reference(),
                        "provider reports " + answer.status());
            default:
                return new LookupAnswer(PaymentLookupOutcome.LOOKUP_FAILED, null,
                        "unexpected provider status " + answer.status());
        }
    }

    @Override
    public CompensationAnswer voidAuthorization(OperationId authorizationOperationId, OperationId voidOperationId,
                                                Money amount) {
        return compensate(authorizationOperationId, "void", voidOperationId, amount, ProviderProtocol.VOIDED);
    }

    @Override
    public CompensationAnswer refund(OperationId authorizationOperationId, OperationId refundOperationId,
                                     Money amount) {
        return compensate(authorizationOperationId, "refund", refundOperationId, amount, ProviderProtocol.REFUNDED);
    }

    private CompensationAnswer compensate(OperationId authorizationOperationId, String action,
                                          OperationId operationId, Money amount, String doneStatus) {
        String body = JSON.writeValueAsString(new CompensationRequest(operationId.value(),
                amount == null ? null : amount.minor(), amount == null ? null : amount.currency()));
        Exchange exchange = send(() -> post(ProviderProtocol.AUTHORIZATIONS + "/"
                + ProviderProtocol.pathOf(authorizationOperationId.value()) + "/" + action, operationId.value(), body));
        if (!exchange.delivered()) {
            return new CompensationAnswer(false, null, exchange.failure());
        }
        CompensationResponse answer = parse(exchange.body(), CompensationResponse.class);
        if (exchange.status() == 200 && answer != null && doneStatus.equals(answer.status())) {
            return new CompensationAnswer(true, answer.reference(), null);
        }
        String reason = answer != null && answer.reason() != null ? ": " + answer.reason() : "";
        return new CompensationAnswer(false, null, action + " not done, provider answered HTTP " + exchange.status() + reason);
    }

    /**
     * A timeout or a dropped connection is UNKNOWN (the provider may have captured; the retry under the same key gets
     * its record), as is a 5xx other than 503; connection refused, 503 and 429 are UNAVAILABLE; a definite refusal
     * (DECLINED, or 409 REJECTED) is DECLINED.
     */
    @Override
    public CaptureAnswer capture(OperationId authorizationOperationId, OperationId captureOperationId, Money amount) {
        String body = JSON.writeValueAsString(new CompensationRequest(captureOperationId.value(), amount.minor(),
                amount.currency()));
        Exchange exchange = send(() -> post(ProviderProtocol.AUTHORIZATIONS + "/"
                + ProviderProtocol.pathOf(authorizationOperationId.value()) + "/capture", captureOperationId.value(),
                body));
        if (exchange.notDelivered()) return new CaptureAnswer(CaptureStatus.UNAVAILABLE, null, null, exchange.failure());
        if (exchange.maybeDelivered()) return new CaptureAnswer(CaptureStatus.UNKNOWN, null, null, exchange.failure());
        int status = exchange.status();
        if (status == 503 || status == 429) {
            return new CaptureAnswer(CaptureStatus.UNAVAILABLE, null, null, "provider unavailable (HTTP " + status + ")");
        }
        if (status >= 500) {
            return new CaptureAnswer(CaptureStatus.UNKNOWN, null, null, "provider answered HTTP " + status);
        }
        CaptureResponse answer = parse(exchange.body(), CaptureResponse.class);
        boolean aboutThisCapture = answer != null && captureOperationId.value().equals(answer.operationId());
        if (!aboutThisCapture) {
            // a 4xx without the provider's answer (a wrong URL, a refused request): not processed; a 200 we cannot
            // read may be a capture made
            return status == 200
                    ? new CaptureAnswer(CaptureStatus.UNKNOWN, null, null, "unreadable answer from provider")
                    : new CaptureAnswer(CaptureStatus.UNAVAILABLE, null, null,
                            "provider refused the request (HTTP " + status + ")");
        }
        String reason = answer.reason() == null ? "" : ": " + answer.reason();
        if (status == 200 && ProviderProtocol.CAPTURED.equals(answer.status())) {
            Money captured = answer.amountMinor() == null || answer.currency() == null
                    || !answer.currency().matches("[A-Z]{3}") ? amount
                    : new Money(answer.amountMinor(), answer.currency());
            return new CaptureAnswer(CaptureStatus.CAPTURED, answer.reference(), captured, null);
        }
        if ((status == 200 && ProviderProtocol.DECLINED.equals(answer.status()))
                || (status == 409 && ProviderProtocol.REJECTED.equals(answer.status()))) {
            return new CaptureAnswer(CaptureStatus.DECLINED, answer.reference(), null,
                    "capture " + answer.status().toLowerCase(java.util.Locale.ROOT) + reason);
        }
        return status == 200
                ? new CaptureAnswer(CaptureStatus.UNKNOWN, null, null, "unexpected provider status " + answer.status())
                : new CaptureAnswer(CaptureStatus.UNAVAILABLE, null, null,
                        "capture not processed, provider answered HTTP " + status + reason);
    }

    private HttpRequest post(String path, String idempotencyKey, String json) {
        return HttpRequest.newBuilder(uri(path))
                .timeout(requestTimeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header(ProviderProtocol.IDEMPOTENCY_KEY, idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8))
                .build();
    }

    private URI uri(String path) {
        String base = baseUrl.get();
        if (base == null) throw new NoProvider();
        return URI.create(base.endsWith("/") ? base.substring(0, base.length() - 1) + path : base + path);
    }

    /** No provider URL configured and no simulator of this application's own: nothing to call. */
    private static final class NoProvider extends RuntimeException {
        NoProvider() {
            super("no payment provider: checkout.payments.provider-url is blank and this application's simulator is off",
                    null, false, false);
        }
    }

    private Exchange send(Supplier<HttpRequest> build) {
        HttpRequest request;
        try {
            request = build.get();
        } catch (NoProvider e) {
            return new Exchange(Delivery.NOT_DELIVERED, 0, null, e.getMessage());
        }
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Exchange(Delivery.DELIVERED, response.statusCode(), response.body(), null);
        } catch (HttpConnectTimeoutException e) {
            // Checked before HttpTimeoutException, its superclass: no connection, so no request.
            return new Exchange(Delivery.NOT_DELIVERED, 0, null, "connect timeout: " + e.getMessage());
        } catch (ConnectException e) {
            return new Exchange(Delivery.NOT_DELIVERED, 0, null, connectFailure(request.uri(), e));
        } catch (HttpTimeoutException e) {
            return new Exchange(Delivery.MAYBE_DELIVERED, 0, null, "no answer within " + requestTimeout);
        } catch (IOException e) {
            return new Exchange(Delivery.MAYBE_DELIVERED, 0, null, "I/O error after sending: " + e);
        } catch (InterruptedException e) {
            // Shutting down: fail the unit of work so the intent is redelivered (same operation id) later.
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling the payment provider", e);
        }
    }

    /**
     * What a failed connection says: the host and port, and an unknown host (a placeholder URL) as such; the JDK's
     * own message is null for an unresolved host.
     */
    static String connectFailure(URI uri, ConnectException e) {
        String where = uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.nio.channels.UnresolvedAddressException || t instanceof java.net.UnknownHostException) {
                return "cannot connect to " + where + ": unknown host (checkout.payments.provider-url)";
            }
        }
        return "cannot connect to " + where + ": " + (e.getMessage() == null ? "connection refused" : e.getMessage());
    }

    private static <T> T parse(String body, Class<T> type) {
        if (body == null || body.isBlank()) return null;
        try {
            return JSON.readValue(body, type);
        } catch (JacksonException e) {
            return null;
        }
    }

    /**
     * This application's simulator: its own loopback server, once that has published its port (then fixed, so it is
     * kept: an {@link Environment} lookup per call was a sixth of this client's CPU). Without it (the simulator off and
     * no provider URL) there is no provider: null, and calls fail as "not delivered" (retryable).
     */
    private static final class OwnSimulatorUrl implements Supplier<String> {

        private final Environment environment;
        private volatile String resolved;

        OwnSimulatorUrl(Environment environment) {
            this.environment = environment;
        }

        @Override
        public String get() {
            String url = resolved;
            if (url != null) return url;
            String own = environment.getProperty(SIMULATOR_PORT_PROPERTY);
            if (own != null) {
                return resolved = "http://127.0.0.1:" + own + "/simulator/provider";
            }
            return null;
        }
    }

    private enum Delivery { DELIVERED, NOT_DELIVERED, MAYBE_DELIVERED }

    private record Exchange(Delivery delivery, int status, String body, String failure) {
        boolean delivered() {
            return delivery == Delivery.DELIVERED;
        }

        boolean notDelivered() {
            return delivery == Delivery.NOT_DELIVERED;
        }

        boolean maybeDelivered() {
            return delivery == Delivery.MAYBE_DELIVERED;
        }
    }
}
