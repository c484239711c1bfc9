package io.durablecheckout.orchestrator.it.support;

import io.durablecheckout.activities.WorkerPauseHook;
import io.durablecheckout.orchestrator.CheckoutApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.List;

/** A whole node of the application inside the test JVM (its own threads, pools and processors) on a shared database. */
public final class InProcessNode implements AutoCloseable {

    private final ConfigurableApplicationContext context;

    private InProcessNode(ConfigurableApplicationContext context) {
        this.context = context;
    }

    public static InProcessNode start(String name, String jdbcUrl, WorkerPauseHook hook, List<String> properties) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + jdbcUrl, "--spring.datasource.username=postgres",
                "--spring.datasource.password=", "--server.port=0", "--checkout.processing.node-id=" + name,
                "--spring.jmx.enabled=false"));
        args.addAll(NodeProcess.DEMO_ON_EXTERNAL_DATABASE);
        properties.forEach(p -> args.add("--" + p));
        SpringApplicationBuilder builder = new SpringApplicationBuilder(CheckoutApplication.class);
        if (hook != null) {
            builder.initializers(ctx -> ctx.getBeanFactory().registerSingleton("workerPauseHook", hook));
        }
        return new InProcessNode(builder.run(args.toArray(String[]::new)));
    }

    public int port() {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }
}
