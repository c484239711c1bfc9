package io.durablecheckout.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.durablecheckout.orchestrator.CheckoutApplication;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.service.CheckoutService;
import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.config.ConfigurerModule;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import javax.sql.DataSource;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The whole application started inside the harness's JVM, exactly as {@code java -jar} would start it, on the
 * benchmark's database and a free port, plus the properties of one configuration. The harness is not a bean of it:
 * it starts and closes one context per configuration so each begins cold on a fresh schema.
 */
final class BenchApplication implements AutoCloseable {

    /** The demo tenant's and operator's keys of this run: drawn at start, never the demo's defaults. */
    static final String TENANT_KEY = "bench-tenant-" + randomHex();
    static final String OPERATOR_KEY = "bench-operator-" + randomHex();

    /**
     * The benchmark runs the demo (its tenant, its simulator, a webhook secret generated into the database) on a
     * PostgreSQL of its own, on purpose: the opt-ins the startup check asks for on a configured database, the same
     * ones the integration tests' nodes use, and this run's keys.
     */
    static List<String> demoArgs() {
        List<String> args = new ArrayList<>(NodeProcess.DEMO_ON_EXTERNAL_DATABASE);
        args.add("--checkout.demo.api-key=" + TENANT_KEY);
        args.add("--checkout.demo.operator-api-key=" + OPERATOR_KEY);
        return args;
    }

    /** {@code checkout.processing.mode} and the node id of an in-process configuration, then {@code --app-property}. */
    static List<String> properties(String mode, BenchOptions options, String... more) {
        List<String> properties = new ArrayList<>(List.of("checkout.processing.mode=" + mode,
                "checkout.processing.node-id=bench"));
        properties.addAll(List.of(more));
        properties.addAll(options.appProperties());
        return properties;
    }

    private static String randomHex() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * Messages handed to the event processors' handlers (every processor, every event it handles), counted by a
     * handler interceptor the harness adds to every processor of the applications it starts in-process.
     */
    static final LongAdder DELIVERIES = new LongAdder();

    /**
     * Per processor: the events its handlers got and the batches (units of work) they came in, so the harness prints
     * how full a batch is (issue 48: per-batch work pays only if batches hold several checkouts' events).
     */
    static final java.util.concurrent.ConcurrentMap<String, LongAdder[]> BATCHES =
            new java.util.concurrent.ConcurrentHashMap<>();

    private static ConfigurerModule countDeliveries() {
        return configurer -> configurer.eventProcessing(processing -> processing.registerDefaultHandlerInterceptor(
                (config, name) -> (MessageHandlerInterceptor<EventMessage<?>>) (unitOfWork, chain) -> {
                    DELIVERIES.increment();
                    LongAdder[] counts = BATCHES.computeIfAbsent(name, n -> new LongAdder[] {new LongAdder(),
                            new LongAdder()});
                    counts[0].increment();
                    unitOfWork.root().getOrComputeResource("bench.batch-counted", k -> {
                        counts[1].increment(); // once per batch: its first handled event
                        return Boolean.TRUE;
                    });
                    return chain.proceed();
                }));
    }

    /** Events and batches so far, per processor. */
    static Map<String, long[]> batches() {
        Map<String, long[]> now = new java.util.TreeMap<>();
        BATCHES.forEach((name, counts) -> now.put(name, new long[] {counts[0].sum(), counts[1].sum()}));
        return now;
    }

    private final ConfigurableApplicationContext context;

    private BenchApplication(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /**
     * @param properties {@code key=value} pairs for this configuration (e.g. the processing mode)
     */
    static BenchApplication start(BenchDatabase db, List<String> properties) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + db.url(),
                "--spring.datasource.username=" + db.user(),
                "--spring.datasource.password=" + db.password(),
                "--server.port=0",
                "--spring.main.banner-mode=off",
                "--spring.jmx.enabled=false"));
        args.addAll(demoArgs());
        properties.forEach(p -> args.add("--" + p));
        return new BenchApplication(new SpringApplicationBuilder(CheckoutApplication.class)
                .initializers(context -> context.getBeanFactory()
                        .registerSingleton("benchDeliveryCounter", countDeliveries()))
                .run(args.toArray(String[]::new)));
    }

    CheckoutService checkoutService() {
        return context.getBean(CheckoutService.class);
    }

    EventStore eventStore() {
        return context.getBean(EventStore.class);
    }

    MeterRegistry meters() {
        return context.getBean(MeterRegistry.class);
    }

    DataSource dataSource() {
        return context.getBean(DataSource.class);
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    /**
     * Closes the pool's idle connections (the pool opens new ones at once). PostgreSQL 14 reports a backend's
     * transaction counts to pg_stat_database at most every 500 ms and keeps the rest until its next transaction or its
     * exit; a backend that exits reports everything, so commit counts read after this are complete.
     */
    void flushDatabaseStatistics() {
        if (dataSource() instanceof HikariDataSource hikari && hikari.getHikariPoolMXBean() != null) {
            hikari.getHikariPoolMXBean().softEvictConnections();
        }
    }

    @Override
    public void close() {
        context.close();
    }
}
