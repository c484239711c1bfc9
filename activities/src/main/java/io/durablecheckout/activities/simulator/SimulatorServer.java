package io.durablecheckout.activities.simulator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.durablecheckout.activities.payments.ProviderProtocol;
import io.durablecheckout.activities.payments.ProviderProtocol.AuthorizationRequest;
import io.durablecheckout.activities.payments.ProviderProtocol.CompensationRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The simulator's own small HTTP server, on a loopback port of its own ({@code checkout.simulator.port}, default 0:
 * any free port; IPv4 loopback, which is what the client's default URL names), which is where
 * {@code HttpPaymentProvider} calls it by default. It is the only server of the simulator's
 * {@link ProviderProtocol} paths ({@code /simulator/provider/v1/authorizations…}): the application's port does not
 * serve them (they answer 404 there), since anyone who can reach that port could otherwise decide a predicted
 * operation before the checkout's own call (issue 53). Only processes on the same host reach this one.
 * <p>
 * Why: the simulator stands in for an external provider, so its requests have no business going through the
 * product's web stack (Tomcat, the Spring Security filter chain, Spring MVC's dispatch and converters), which was
 * about nine tenths of the simulator's request CPU and a fifth of the JVM's under the standard workload
 * (docs/decisions.md 57). The call stays real HTTP over a socket.
 * <p>
 * Started when the bean is created, before any lifecycle bean (the event processors) starts, and the port is published
 * as {@value #PORT_PROPERTY}, as Boot publishes {@code local.server.port}.
 */
@Component
@ConditionalOnProperty(name = "checkout.simulator.enabled", havingValue = "true", matchIfMissing = true)
public class SimulatorServer implements InitializingBean, DisposableBean {

    /** The bound port, for {@code HttpPaymentProvider}'s default URL (a property name, so payments imports nothing here). */
    public static final String PORT_PROPERTY = "local.checkout.simulator.port";
    static final String PREFIX = "/simulator/provider" + ProviderProtocol.AUTHORIZATIONS;
    /** The simulator's 3-D Secure page: a GET of {@code /simulator/provider/3ds/{operationId}} authenticates. */
    static final String THREE_DS_PREFIX = "/simulator/provider/3ds";

    private static final Logger log = LoggerFactory.getLogger(SimulatorServer.class);
    /** Tomcat's default thread limit: held answers (tok_timeout_*, tok_slow) sleep on a thread each. */
    private static final int MAX_THREADS = 200;

    private final PaymentProviderSimulator simulator;
    private final SimulatorProperties properties;
    private final ConfigurableEnvironment environment;
    private final JsonMapper json;
    private HttpServer server;
    private ThreadPoolExecutor executor;

    public SimulatorServer(PaymentProviderSimulator simulator, SimulatorProperties properties,
                           ConfigurableEnvironment environment, ObjectProvider<JsonMapper> jsonMapper) {
        this.simulator = simulator;
        this.properties = properties;
        this.environment = environment;
        // Boot's mapper when there is one: the JSON the product writes.
        this.json = jsonMapper.getIfUnique(() -> JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build());
    }

    @Override
    public void afterPropertiesSet() throws IOException {
        // Without it, the response headers and body go out as two small segments and Nagle's algorithm holds the
        // second until the client's delayed ACK (tens of ms). Read once, by the JDK, when the first server starts.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
        AtomicInteger threads = new AtomicInteger();
        // All threads up front would be 200 idle threads; an unbounded queue never rejects (a rejection would break
        // the JDK server's dispatcher), and core = max with a time-out grows and shrinks the pool as Tomcat's does.
        executor = new ThreadPoolExecutor(MAX_THREADS, MAX_THREADS, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "simulator-http-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), properties.port()), 0);
        server.createContext(PREFIX, this::handle);
        server.createContext(THREE_DS_PREFIX, this::authenticate);
        server.setExecutor(executor);
        server.start();
        int port = server.getAddress().getPort();
        environment.getPropertySources().addFirst(new MapPropertySource("checkout-simulator-server",
                Map.of(PORT_PROPERTY, port)));
        log.info("Payment provider simulator listening on http://{}:{}{}", server.getAddress().getHostString(),
                port, PREFIX);
    }

    /** The bound port (tests). */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void destroy() {
        if (server != null) server.stop(0);
        if (executor != null) executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            ResponseEntity<?> answer;
            try {
                answer = dispatch(exchange);
            } catch (JacksonException e) {
                answer = ResponseEntity.badRequest().build();
            } catch (RuntimeException e) {
                log.warn("Simulator request {} {} failed", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                answer = ResponseEntity.internalServerError().build();
            }
            respond(exchange, answer);
        }
    }

    /** The customer's side of 3-D Secure, simulated: opening the page authenticates the operation it names. */
    private void authenticate(HttpExchange exchange) throws IOException {
        try (exchange) {
            String rest = exchange.getRequestURI().getPath().substring(THREE_DS_PREFIX.length());
            ResponseEntity<?> answer;
            if (!"GET".equals(exchange.getRequestMethod())) {
                answer = ResponseEntity.status(405).build();
            } else if (rest.length() <= 1) {
                answer = ResponseEntity.notFound().build();
            } else {
                answer = simulator.authenticate(rest)
                        ? ResponseEntity.ok(Map.of("authenticated", true))
                        : ResponseEntity.status(409).body(Map.of("authenticated", false,
                                "reason", "nothing waits for authentication under this operation"));
            }
            respond(exchange, answer);
        }
    }

    private ResponseEntity<?> dispatch(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        // getPath() is percent-decoded, as Spring's path variables are; ProviderProtocol.pathOf never encodes '/'.
        String path = exchange.getRequestURI().getPath();
        String rest = path.substring(PREFIX.length());
        String key = exchange.getRequestHeaders().getFirst(ProviderProtocol.IDEMPOTENCY_KEY);
        if (rest.isEmpty() && "POST".equals(method)) {
            byte[] body = readBody(exchange);
            if (body.length == 0) return ResponseEntity.badRequest().build();
            return simulator.authorize(key, json.readValue(body, AuthorizationRequest.class));
        }
        if (!rest.startsWith("/") || rest.length() == 1) return ResponseEntity.notFound().build();
        if ("GET".equals(method)) {
            return simulator.lookup(rest, key);
        }
        if ("POST".equals(method)) {
            byte[] body = readBody(exchange);
            if (rest.endsWith("/capture")) {
                return simulator.capture(rest, key,
                        body.length == 0 ? null : json.readValue(body, CompensationRequest.class));
            }
            return simulator.compensate(rest, key,
                    body.length == 0 ? null : json.readValue(body, CompensationRequest.class));
        }
        return ResponseEntity.status(405).build();
    }

    private static byte[] readBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            return in.readAllBytes();
        }
    }

    private void respond(HttpExchange exchange, ResponseEntity<?> answer) throws IOException {
        byte[] body = answer.getBody() == null ? null : json.writeValueAsBytes(answer.getBody());
        if (body != null) {
            exchange.getResponseHeaders().set("Content-Type", "application/json");
        }
        // -1: no body at all (a 0 would mean a chunked one)
        exchange.sendResponseHeaders(answer.getStatusCode().value(), body == null ? -1 : body.length);
        if (body != null) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
