package io.durablecheckout.benchmarks;

import io.durablecheckout.orchestrator.it.support.NodeProcess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The application as its own operating-system processes (the recovery, burst and cluster runs): the packaged jar,
 * started by the launcher the integration tests use ({@link NodeProcess}), on the benchmark's database, with the
 * demo's opt-ins and this run's keys, {@code --app-jvm-option}s and {@code --app-property}s. Logs go to one
 * temporary directory per run.
 */
final class AppProcesses {

    /** The first start migrates the schema; on a busy 2-core machine that and the JVM start take a while. */
    static final Duration START_LIMIT = Duration.ofSeconds(240);
    /** Poll often enough that a start-to-ready time is accurate to a tenth of a second. */
    static final Duration HEALTH_POLL = Duration.ofMillis(100);

    private final BenchDatabase db;
    private final BenchOptions options;
    private final Path jar;
    private final Path logDirectory;

    AppProcesses(BenchDatabase db, BenchOptions options, String run) throws IOException {
        this.db = db;
        this.options = options;
        this.jar = jar(options);
        this.logDirectory = Files.createTempDirectory("checkout-bench-" + run + "-");
    }

    Path jar() {
        return jar;
    }

    Path logDirectory() {
        return logDirectory;
    }

    /** Starts one process with this node id (its log: {@code <logName>.log}) and returns at once. */
    NodeProcess start(String nodeId, String logName, String... extraProperties) throws IOException {
        List<String> args = new ArrayList<>(BenchApplication.demoArgs());
        // A node restarted keeps its id, as a host or a stateful-set ordinal does: it takes its processor segments
        // back at once instead of waiting checkout.processing.claim-timeout for its own dead claims.
        args.add("--checkout.processing.node-id=" + nodeId);
        options.appProperties().forEach(p -> args.add("--" + p));
        for (String p : extraProperties) {
            args.add("--" + p);
        }
        List<String> jvm = new ArrayList<>(options.appJvmOptions());
        Path archive = archiveOf(jar);
        if (archive != null) {
            jvm.add("-XX:SharedArchiveFile=" + archive); // as the README starts it (decision 56)
        }
        Path directives = jar.resolveSibling("compiler-directives.json");
        if (archive != null && Files.isRegularFile(directives)) { // as the README starts it (decision 90)
            jvm.add("-XX:+UnlockDiagnosticVMOptions");
            jvm.add("-XX:CompilerDirectivesFile=" + directives);
        }
        return NodeProcess.launch(new NodeProcess.Launch(jar, jvm, db.url(), db.user(),
                db.password(), args, logDirectory.resolve(logName + ".log")));
    }

    /** @return milliseconds until it served */
    static long awaitHealthy(NodeProcess node) {
        return node.awaitHealthy(START_LIMIT, HEALTH_POLL);
    }

    /** The class-data sharing archive the build trained beside an extracted application jar, if there is one. */
    static Path archiveOf(Path jar) {
        Path archive = jar.resolveSibling(jar.getFileName().toString().replaceFirst("\\.jar$", ".jsa"));
        return Files.isRegularFile(archive) ? archive : null;
    }

    /**
     * {@code --jar}, else the application as the README starts it ({@code orchestrator/target/app}: the extracted
     * jar with its class-data sharing archive), else a private copy of the application packaged in {@code orchestrator/target} (the harness is
     * started from the repository's root, as documented).
     */
    static Path jar(BenchOptions options) throws IOException {
        if (options.jar() != null) {
            return options.jar();
        }
        Path extracted = Path.of("orchestrator", "target", "app", "checkout-orchestrator.jar");
        if (Files.isRegularFile(extracted) && archiveOf(extracted) != null) {
            return extracted.toAbsolutePath();
        }
        Path packaged = NodeProcess.packagedJar(Path.of("orchestrator", "target"));
        if (packaged == null) {
            throw new IllegalStateException("--recovery, --burst and --cluster start the packaged application: run"
                    + " ./mvnw -B -q -DskipTests package from the repository's root first, or pass --jar=PATH");
        }
        return packaged;
    }
}
