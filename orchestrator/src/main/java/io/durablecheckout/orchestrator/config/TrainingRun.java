package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.tenancy.AccessProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The build's class-data sharing training start (decisions 56, 91): with {@code checkout.training.checkouts=N}, once
 * the embedded demo is ready it runs N checkouts through its own HTTP API to completion, then stops as on SIGTERM,
 * and the archive written at exit holds the classes checkouts load, not only those of the start. Without them a node
 * restarted with a backlog loaded about 1,700 classes from the jars while it caught up. Only on the embedded demo, whose
 * demo key it uses: on a configured database the start fails.
 */
@Component
@ConditionalOnProperty(name = "checkout.training.checkouts")
class TrainingRun implements ApplicationListener<ApplicationReadyEvent> {

    private static final Logger log = LoggerFactory.getLogger(TrainingRun.class);
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final Pattern STATE = Pattern.compile("\"state\":\"([a-z_]+)\"");

    private final Environment env;

    TrainingRun(Environment env) {
        this.env = env;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        ConfigurableApplicationContext context = event.getApplicationContext();
        int code = 0;
        try {
            run(Integer.parseInt(env.getRequiredProperty("checkout.training.checkouts")));
        } catch (Exception e) {
            log.error("The training run failed; the archive holds what was loaded until then", e);
            code = 1;
        }
        int exit = code;
        System.exit(SpringApplication.exit(context, () -> exit));
    }

    void run(int checkouts) throws Exception {
        AccessProperties.Demo demo = Binder.get(env).bindOrCreate("checkout.demo", AccessProperties.Demo.class);
        if (!Boolean.TRUE.equals(demo.enabled()) || !env.getProperty("spring.datasource.url", "").isBlank()) {
            throw new IllegalStateException("checkout.training.checkouts runs only on the embedded demo");
        }
        String base = "http://127.0.0.1:" + env.getRequiredProperty("local.server.port") + "/api/v1/checkouts";
        HttpClient http = HttpClient.newHttpClient();
        List<String> locations = new ArrayList<>();
        for (int i = 0; i < checkouts; i++) {
            String sku = String.format("SKU-%04d", 1 + i % 1000);
            HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base))
                    .header("Authorization", "Bearer " + demo.apiKey())
                    .header("Idempotency-Key", "cds-training-" + i)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"items\":[{\"sku\":\"" + sku + "\",\"quantity\":1}],"
                            + "\"amount\":{\"minor\":1999,\"currency\":\"EUR\"},\"paymentToken\":\"tok_approve\","
                            + "\"customerEmail\":\"training-" + i + "@example.com\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (created.statusCode() != 202 && created.statusCode() != 200) {
                throw new IllegalStateException("training checkout " + i + ": " + created.statusCode() + " "
                        + created.body());
            }
            locations.add(created.headers().firstValue("Location").orElseThrow());
        }
        long deadline = System.nanoTime() + LIMIT.toNanos();
        for (String location : locations) {
            URI uri = URI.create(base).resolve(location);
            while (true) {
                String body = http.send(HttpRequest.newBuilder(uri)
                        .header("Authorization", "Bearer " + demo.apiKey()).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                Matcher state = STATE.matcher(body);
                if (state.find() && state.group(1).equals("completed")) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("training checkout not completed within " + LIMIT + ": " + body);
                }
                Thread.sleep(50); // a build step polling its own server
            }
        }
        log.info("Training run: {} checkouts completed", checkouts);
    }
}
