package io.durablecheckout.activities.payments.stripe.fake;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.ok;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;

/**
 * A stateful stand-in for the part of Stripe's API the adapter uses, on a loopback port (WireMock): PaymentIntents
 * created, confirmed, retrieved, cancelled and searched by metadata, Refunds, and Stripe's idempotency rules (a key
 * replays its first answer, a key reused with other parameters is an {@code idempotency_error}, nothing is kept for a
 * request that was rate limited). It outlives the nodes that call it, so it counts effects where they happen:
 * intents created and charges made per operation, cancellations per intent, refunds per key. Every answer it serves
 * is one Stripe's published description allows ({@link StripeOpenApi#violations(WireMockServer)}).
 *
 * <p>Payment methods: Stripe's test ones {@code pm_card_visa} (authorized), {@code pm_card_visa_chargeDeclined}
 * (declined, 402) and {@code pm_card_authenticationRequired} (3-D Secure: {@code requires_action}), and four of this
 * fake's own: {@value #SLOW_AFTER_CHARGE} (the charge is made, the answer comes after the caller gave up),
 * {@value #RATE_LIMITED_ONCE} (the first create of an operation is refused with a 429), {@value #SLOW_CAPTURE} (the
 * first capture is made, its answer comes after the caller gave up) and {@value #NO_SUCH_PAYMENT_METHOD} (the create
 * is refused: {@code resource_missing} on {@code payment_method}, as for any id Stripe does not know).
 *
 * <p>Captures ({@code POST /v1/payment_intents/{id}/capture}, {@code amount_to_capture}) follow Stripe's rules: only
 * from {@code requires_capture}, at most the capturable amount, then {@code succeeded} with {@code amount_received};
 * counted per operation ({@link Effect#CAPTURE}).
 */
public final class StripeFake implements AutoCloseable {

    public static final String SLOW_AFTER_CHARGE = "pm_fake_slowAfterCharge";
    public static final String RATE_LIMITED_ONCE = "pm_fake_rateLimitedOnce";
    public static final String SLOW_CAPTURE = "pm_fake_slowCapture";
    public static final String NO_SUCH_PAYMENT_METHOD = "pm_fake_noSuchPaymentMethod";

    /** Counted effects: what a real account would show twice if the product did it twice. */
    public enum Effect { INTENT_CREATED, CHARGE, CANCEL, REFUND, CAPTURE }

    /** A request that can act (not a read), as received: when, which key, which operation it names. */
    public record Call(long atMillis, String method, String path, String idempotencyKey) {
    }

    private record Intent(String id, String operationId, String tenantId, long amount, String currency,
                          String paymentMethod, String status, String lastPaymentError, boolean charged,
                          long received) {
        Intent with(String newStatus, String error, boolean charge) {
            return new Intent(id, operationId, tenantId, amount, currency, paymentMethod, newStatus, error, charge,
                    received);
        }

        Intent captured(long amountReceived) {
            return new Intent(id, operationId, tenantId, amount, currency, paymentMethod, "succeeded", null, true,
                    amountReceived);
        }
    }

    private record Answer(int status, String body, String requestFingerprint) {
    }

    private static final String DECLINE = "{\"type\":\"card_error\",\"code\":\"card_declined\","
            + "\"decline_code\":\"generic_decline\",\"message\":\"Your card was declined.\"}";
    private static final Pattern INTENT_PATH = Pattern.compile("/v1/payment_intents/(pi_[A-Za-z0-9]+)(/confirm|/cancel|/capture)?");
    private static final Pattern SEARCH_OPERATION = Pattern.compile("metadata\\['operation_id']:'((?:[^'\\\\]|\\\\.)*)'");

    private final int slowMillis;
    private final WireMockServer server;
    private final Map<String, Intent> intents = new ConcurrentHashMap<>();
    private final Map<String, Answer> byKey = new ConcurrentHashMap<>();
    private final Set<String> rateLimited = ConcurrentHashMap.newKeySet();
    private final Set<String> slowCaptured = ConcurrentHashMap.newKeySet();
    private final Map<Effect, Map<String, AtomicInteger>> effects = new ConcurrentHashMap<>();
    private final List<Call> calls = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger ids = new AtomicInteger();

    /** @param slowMillis how late {@value #SLOW_AFTER_CHARGE}'s confirm answers: longer than the caller waits */
    public StripeFake(int slowMillis) {
        this.slowMillis = slowMillis;
        this.server = new WireMockServer(wireMockConfig().dynamicPort().bindAddress("127.0.0.1")
                .containerThreads(16).extensions(new Api()));
        server.start();
        server.stubFor(any(anyUrl()).willReturn(ok())); // every request reaches the transformer, which answers it
    }

    public int port() {
        return server.port();
    }

    public WireMockServer server() {
        return server;
    }

    /** Per operation (or intent, for cancellations; key, for refunds): how often the effect happened. */
    public Map<String, Integer> effects(Effect effect) {
        Map<String, Integer> out = new TreeMap<>();
        effects.getOrDefault(effect, Map.of()).forEach((k, n) -> out.put(k, n.get()));
        return out;
    }

    /** Every create, confirm, cancel and refund received, in order (retrieves and searches left out). */
    public List<Call> actingCalls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** The operation an idempotency key acts for: {@code <op>:create} and {@code <op>:confirm} are the op's. */
    public static String operationOf(String idempotencyKey) {
        return idempotencyKey == null ? null : idempotencyKey.replaceAll(":(create|confirm)(:.*)?$", "");
    }

    /**
     * The customer completes the 3-D Secure challenge of the intent created for {@code operationId}
     * ({@code pm_card_authenticationRequired}): {@code requires_action} becomes {@code requires_capture}, charged, as
     * Stripe does once the customer authenticates. False when no intent of the operation waits for them.
     */
    public synchronized boolean authenticate(String operationId) {
        for (Intent intent : intents.values()) {
            if (intent.operationId().equals(operationId) && "requires_action".equals(intent.status())) {
                intents.put(intent.id(), intent.with("requires_capture", null, true));
                return true;
            }
        }
        return false;
    }

    /** The intent of {@code operationId} as Stripe would show it (a webhook's data.object), or null. */
    public String intentOf(String operationId) {
        return intents.values().stream().filter(i -> i.operationId().equals(operationId)).findFirst()
                .map(StripeFake::intentJson).orElse(null);
    }

    /** The schema's objections to what this fake answered; empty when Stripe's description allows all of it. */
    public List<String> violations() {
        return StripeOpenApi.violations(server);
    }

    @Override
    public void close() {
        server.stop();
    }

    private void count(Effect effect, String key) {
        effects.computeIfAbsent(effect, e -> new ConcurrentHashMap<>())
                .computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    /** Answers every request from the fake's state; Stripe's idempotency applies to every POST with a key. */
    private final class Api implements ResponseDefinitionTransformerV2 {

        @Override
        public String getName() {
            return "stripe-fake";
        }

        @Override
        public ResponseDefinition transform(ServeEvent event) {
            Request request = event.getRequest();
            String path = request.getUrl().replaceAll("\\?.*", "");
            String method = request.getMethod().getName();
            if ("GET".equals(method)) {
                return json(read(request, path));
            }
            String key = request.containsHeader("Idempotency-Key") ? request.getHeader("Idempotency-Key") : null;
            calls.add(new Call(System.currentTimeMillis(), method, path, key));
            Map<String, String> form = form(request.getBodyAsString());
            String fingerprint = method + " " + path + " " + new TreeMap<>(form);
            synchronized (StripeFake.this) { // one request at a time: a key's first answer is its only answer
                if (key != null && byKey.containsKey(key)) {
                    Answer first = byKey.get(key);
                    if (!first.requestFingerprint().equals(fingerprint)) {
                        return json(new Answer(400, error("idempotency_error", null, null, "Keys for idempotent"
                                + " requests can only be used with the same parameters they were first used with.",
                                null), fingerprint));
                    }
                    return ResponseDefinitionBuilder.like(json(first)).withHeader("Idempotent-Replayed", "true")
                            .build();
                }
                Answer answer = act(path, form);
                if (key != null && answer.status() != 429) {
                    byKey.put(key, new Answer(answer.status(), answer.body(), fingerprint));
                }
                ResponseDefinition response = json(answer);
                boolean slow = answer.status() == 200 && path.endsWith("/confirm")
                        && SLOW_AFTER_CHARGE.equals(intents.get(intentId(path)).paymentMethod())
                        || answer.status() == 200 && path.endsWith("/capture")
                        && SLOW_CAPTURE.equals(intents.get(intentId(path)).paymentMethod())
                        && slowCaptured.add(intentId(path)); // the first capture only
                return slow ? ResponseDefinitionBuilder.like(response).withFixedDelay(slowMillis).build() : response;
            }
        }

        private Answer read(Request request, String path) {
            if (path.equals("/v1/payment_intents/search")) {
                String query = request.queryParameter("query").isPresent() ? request.queryParameter("query").firstValue()
                        : "";
                Matcher m = SEARCH_OPERATION.matcher(query);
                String operation = m.find() ? m.group(1).replace("\\'", "'") : null;
                List<String> found = intents.values().stream().filter(i -> i.operationId().equals(operation))
                        .map(StripeFake::intentJson).toList();
                return new Answer(200, "{\"object\":\"search_result\",\"data\":[" + String.join(",", found)
                        + "],\"has_more\":false,\"next_page\":null,\"url\":\"/v1/payment_intents/search\"}", "");
            }
            Matcher m = INTENT_PATH.matcher(path);
            if (m.matches() && m.group(2) == null && intents.containsKey(m.group(1))) {
                return new Answer(200, intentJson(intents.get(m.group(1))), "");
            }
            return notFound(path);
        }

        private Answer act(String path, Map<String, String> form) {
            if (path.equals("/v1/payment_intents")) {
                String operation = form.getOrDefault("metadata[operation_id]", "");
                if (RATE_LIMITED_ONCE.equals(form.get("payment_method")) && rateLimited.add(operation)) {
                    return new Answer(429, error("invalid_request_error", "rate_limit", null,
                            "Too many requests hit the API too quickly.", null), "");
                }
                if (NO_SUCH_PAYMENT_METHOD.equals(form.get("payment_method"))) {
                    return new Answer(400, error("invalid_request_error", "resource_missing", null, "payment_method",
                            "No such PaymentMethod: '" + NO_SUCH_PAYMENT_METHOD + "'", null), "");
                }
                Intent intent = new Intent("pi_fake" + String.format("%08d", ids.incrementAndGet()), operation,
                        form.get("metadata[tenant_id]"), Long.parseLong(form.getOrDefault("amount", "0")),
                        form.getOrDefault("currency", "eur"), form.get("payment_method"), "requires_confirmation",
                        null, false, 0);
                intents.put(intent.id(), intent);
                count(Effect.INTENT_CREATED, operation);
                return new Answer(200, intentJson(intent), "");
            }
            if (path.equals("/v1/refunds")) {
                Intent intent = intents.get(form.get("payment_intent"));
                if (intent == null) return notFound(path);
                if (!"succeeded".equals(intent.status())) {
                    return unexpectedState(intent, "refund");
                }
                count(Effect.REFUND, intent.id());
                String id = "re_fake" + String.format("%08d", ids.incrementAndGet());
                return new Answer(200, "{\"id\":\"" + id + "\",\"object\":\"refund\",\"amount\":"
                        + form.getOrDefault("amount", String.valueOf(intent.amount())) + ",\"balance_transaction\":null,"
                        + "\"charge\":\"ch_" + intent.id().substring(3) + "\",\"created\":1764720200,\"currency\":\""
                        + intent.currency() + "\",\"metadata\":{},\"payment_intent\":\"" + intent.id() + "\","
                        + "\"reason\":null,\"receipt_number\":null,\"source_transfer_reversal\":null,"
                        + "\"status\":\"succeeded\",\"transfer_reversal\":null}", "");
            }
            Matcher m = INTENT_PATH.matcher(path);
            if (!m.matches() || m.group(2) == null || !intents.containsKey(m.group(1))) return notFound(path);
            Intent intent = intents.get(m.group(1));
            if (m.group(2).equals("/confirm")) {
                if (!"requires_confirmation".equals(intent.status())) return unexpectedState(intent, "confirm");
                count(Effect.CHARGE, intent.operationId());
                Intent after = switch (intent.paymentMethod() == null ? "" : intent.paymentMethod()) {
                    case "pm_card_visa_chargeDeclined" -> intent.with("requires_payment_method", DECLINE, false);
                    case "pm_card_authenticationRequired" -> intent.with("requires_action", null, false);
                    default -> intent.with("requires_capture", null, true);
                };
                intents.put(after.id(), after);
                if (after.lastPaymentError() != null) {
                    return new Answer(402, error("card_error", "card_declined", "generic_decline",
                            "Your card was declined.", intentJson(after)), "");
                }
                return new Answer(200, intentJson(after), "");
            }
            if (m.group(2).equals("/capture")) {
                if (!"requires_capture".equals(intent.status())) return unexpectedState(intent, "capture");
                long amount = Long.parseLong(form.getOrDefault("amount_to_capture", String.valueOf(intent.amount())));
                if (amount > intent.amount()) {
                    return new Answer(400, error("invalid_request_error", "amount_too_large", null,
                            "amount_to_capture", "The amount to capture exceeds the amount capturable.", null), "");
                }
                Intent after = intent.captured(amount);
                intents.put(after.id(), after);
                count(Effect.CAPTURE, intent.operationId());
                return new Answer(200, intentJson(after), "");
            }
            // cancel: allowed until the intent is captured or already cancelled
            if (Set.of("succeeded", "canceled").contains(intent.status())) return unexpectedState(intent, "cancel");
            Intent after = intent.with("canceled", intent.lastPaymentError(), intent.charged());
            intents.put(after.id(), after);
            count(Effect.CANCEL, intent.id());
            return new Answer(200, intentJson(after), "");
        }

        private Answer unexpectedState(Intent intent, String action) {
            return new Answer(400, error("invalid_request_error", "payment_intent_unexpected_state", null,
                    "You cannot " + action + " this PaymentIntent because it has a status of " + intent.status() + ".",
                    intentJson(intent)), "");
        }

        private Answer notFound(String path) {
            return new Answer(404, error("invalid_request_error", "resource_missing", null,
                    "No such resource: " + path, null), "");
        }

        private String intentId(String path) {
            Matcher m = INTENT_PATH.matcher(path);
            return m.matches() ? m.group(1) : "";
        }
    }

    private static ResponseDefinition json(Answer answer) {
        return ResponseDefinitionBuilder.responseDefinition().withStatus(answer.status())
                .withHeader("Content-Type", "application/json").withHeader("Request-Id", "req_fake")
                .withBody(answer.body()).build();
    }

    /** Stripe's error shape; what does not apply is left out (its schema has no null for it). */
    static String error(String type, String code, String declineCode, String message, String paymentIntent) {
        return error(type, code, declineCode, null, message, paymentIntent);
    }

    static String error(String type, String code, String declineCode, String param, String message,
                        String paymentIntent) {
        StringBuilder e = new StringBuilder("{\"error\":{");
        List<String> fields = new ArrayList<>();
        if (type != null) fields.add("\"type\":\"" + type + "\"");
        if (code != null) fields.add("\"code\":\"" + code + "\"");
        if (declineCode != null) fields.add("\"decline_code\":\"" + declineCode + "\"");
        if (param != null) fields.add("\"param\":\"" + param + "\"");
        if (message != null) fields.add("\"message\":\"" + message + "\"");
        if (paymentIntent != null) fields.add("\"payment_intent\":" + paymentIntent);
        return e.append(String.join(",", fields)).append("}}").toString();
    }

    private static String intentJson(Intent i) {
        boolean capturable = "requires_capture".equals(i.status());
        String lastError = i.lastPaymentError() == null ? "null" : i.lastPaymentError();
        return "{\"id\":\"" + i.id() + "\",\"object\":\"payment_intent\",\"amount\":" + i.amount()
                + ",\"amount_capturable\":" + (capturable ? i.amount() : 0) + ",\"amount_details\":{\"tip\":{}},"
                + "\"amount_received\":" + i.received() + ",\"application\":null,\"application_fee_amount\":null,"
                + "\"automatic_payment_methods\":null,\"canceled_at\":" + ("canceled".equals(i.status()) ? "1764720100" : "null")
                + ",\"cancellation_reason\":null,\"capture_method\":\"manual\",\"client_secret\":\"" + i.id()
                + "_secret_fake\",\"confirmation_method\":\"automatic\",\"created\":1764720000,\"currency\":\""
                + i.currency() + "\",\"customer\":null,\"description\":null,\"last_payment_error\":" + lastError
                + ",\"latest_charge\":" + (i.charged() ? "\"ch_" + i.id().substring(3) + "\"" : "null")
                + ",\"livemode\":false,\"metadata\":{\"operation_id\":\"" + i.operationId().replace("\"", "\\\"") + "\""
                + (i.tenantId() == null ? "" : ",\"tenant_id\":\"" + i.tenantId() + "\"") + "},\"next_action\":"
                + ("requires_action".equals(i.status()) ? "{\"type\":\"use_stripe_sdk\",\"use_stripe_sdk\":{}}" : "null")
                + ",\"on_behalf_of\":null,\"payment_method\":" + (i.paymentMethod() == null ? "null" : "\"" + i.paymentMethod() + "\"")
                + ",\"payment_method_options\":{},\"payment_method_types\":[\"card\"],\"processing\":null,"
                + "\"receipt_email\":null,\"review\":null,\"setup_future_usage\":null,\"shipping\":null,"
                + "\"statement_descriptor\":null,\"statement_descriptor_suffix\":null,\"status\":\"" + i.status()
                + "\",\"transfer_data\":null,\"transfer_group\":null}";
    }

    private static Map<String, String> form(String body) {
        Map<String, String> form = new LinkedHashMap<>();
        if (body == null || body.isBlank()) return form;
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            form.put(name, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return form;
    }
}
