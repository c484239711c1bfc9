package io.durablecheckout.orchestrator;

import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import io.durablecheckout.orchestrator.replay.ReplayCommand;
import io.durablecheckout.orchestrator.tenancy.AdminKeyCommand;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The orchestrator process. It also hosts the activity services unless {@code checkout.activities.enabled=false}
 * (they meet only through the event store, so the same code runs as one process or several).
 */
@SpringBootApplication(scanBasePackages = "io.durablecheckout")
@ConfigurationPropertiesScan("io.durablecheckout")
public class CheckoutApplication {

    static {
        // Axon's update checker reports to the vendor over the network; a payments system calls out to no one.
        if (System.getProperty("axoniq.update-checker.disabled") == null) {
            System.setProperty("axoniq.update-checker.disabled", "true");
        }
        // nor does it advertise a vendor's console at each start
        if (System.getProperty("disable-axoniq-console-message") == null) {
            System.setProperty("disable-axoniq-console-message", "true");
        }
    }

    public static void main(String[] args) {
        if (args.length > 0 && (args[0].equals("replay") || args[0].equals("export"))) {
            // the replay command line: no Spring context, no server, no processors, no deadlines (docs/replay.md)
            System.exit(ReplayCommand.run(args, System.out, System.err, CheckoutApplication::embeddedDatabase));
        }
        if (args.length > 0 && args[0].equals(AdminKeyCommand.NAME)) {
            // the first admin key of the configured database, without SQL (docs/security.md); no server either
            System.exit(AdminKeyCommand.run(args, System.getenv(), System.out, System.err));
        }
        try {
            SpringApplication.run(CheckoutApplication.class, args);
            String missing = missingOptions(ManagementFactory.getRuntimeMXBean().getInputArguments(),
                    Boolean.getBoolean("checkout.launcher"));
            if (missing != null) {
                LoggerFactory.getLogger(CheckoutApplication.class).info(missing);
            }
        } catch (RuntimeException e) {
            // A failed start must end the process (some library threads are not daemons), so a supervisor sees it.
            System.exit(1);
        }
    }

    /**
     * The one line a start without the launcher ({@code ./checkout}, docs/operations.md) logs: which of its JVM options
     * (class-data archive, compiler directives) this JVM runs without; null when started by the launcher (it says
     * itself what it falls back from) or with both.
     */
    static String missingOptions(List<String> jvmArguments, boolean launcher) {
        if (launcher) {
            return null;
        }
        List<String> missing = new ArrayList<>();
        if (jvmArguments.stream().noneMatch(a -> a.startsWith("-XX:SharedArchiveFile="))) {
            missing.add("the class-data archive (a slower start)");
        }
        if (jvmArguments.stream().noneMatch(a -> a.startsWith("-XX:CompilerDirectivesFile="))) {
            missing.add("the compiler directives (slower work just after the start)");
        }
        return missing.isEmpty() ? null
                : "Started without ./checkout (the launcher), so without " + String.join(" and ", missing);
    }

    /** The embedded PostgreSQL the replay command starts on a data directory no server is running on. */
    static ReplayCommand.EmbeddedDatabase embeddedDatabase(java.nio.file.Path dataDirectory) {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.start(dataDirectory, 0);
        return new ReplayCommand.EmbeddedDatabase() {
            @Override
            public String jdbcUrl() {
                return server.jdbcUrl();
            }

            @Override
            public void close() {
                try {
                    server.close();
                } catch (java.io.IOException e) {
                    throw new IllegalStateException("stopping the embedded database: " + e.getMessage(), e);
                }
            }
        };
    }
}
