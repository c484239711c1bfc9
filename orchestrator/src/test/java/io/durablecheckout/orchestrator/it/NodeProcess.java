package io.durablecheckout.orchestrator.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * The application as a separate operating-system process (the packaged jar when it exists, else this test's
 * classpath), so a test can kill it with SIGKILL and start it again, as an operator would.
 */
public final class NodeProcess implements AutoCloseable {

    /** Test nodes run the demo (keys, simulator, generated webhook secret) on their own PostgreSQL, on purpose. */
    static final List<String> DEMO_ON_EXTERNAL_DATABASE = List.of(
            "--checkout.demo.allow-with-external-database=true",
            "--checkout.simulator.allow-with-external-database=true",
            "--checkout.demo.generate-webhook-secret=true");

    private final Process process;
    private final int port;

    private NodeProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    public static NodeProcess start(String name, String jdbcUrl, List<String> extraArgs) throws IOException {
        return start(name, jdbcUrl, extraArgs, List.of("-Xmx512m"));
    }

    /** @param jvmOptions e.g. a small heap for several nodes on one machine (ScaleOutIT) */
    public static NodeProcess start(String name, String jdbcUrl, List<String> extraArgs, List<String> jvmOptions)
            throws IOException {
        int port = freePort();
        List<String> command = command(jdbcUrl, port, jvmOptions);
        command.addAll(DEMO_ON_EXTERNAL_DATABASE);
        command.addAll(extraArgs);
        Path log = Path.of("target", name + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        NodeProcess node = new NodeProcess(process, port);
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(250))
                .until(() -> !process.isAlive() || node.healthy());
        if (!process.isAlive()) {
            throw new IllegalStateException("node " + name + " exited with " + process.exitValue() + "; see " + log);
        }
        return node;
    }

    /**
     * Every test node runs with the C1 compiler only and the serial collector, from the jar extracted with a class-data
     * sharing archive trained once per test JVM (see {@link #trainedLaunch}): a node then starts on about a third of
     * the CPU (measured on this 2-core machine: 21 s of CPU → 6 s), which is most of what the multi-process tests cost.
     * Test nodes run a few dozen checkouts, so the faster compiler buys nothing there.
     */
    static final List<String> TEST_NODE_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** The JVM and the application with its database and port, nothing else. */
    private static List<String> command(String jdbcUrl, int port, List<String> jvmOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java());
        TEST_NODE_JVM.stream().filter(o -> !jvmOptions.contains(o)).forEach(command::add);
        command.addAll(jvmOptions);
        Path jar = packagedJar();
        if (jar != null) {
            Launch launch = trainedLaunch(jar, jdbcUrl);
            if (launch.archive() != null) {
                command.add("-XX:SharedArchiveFile=" + launch.archive());
                command.add("-Xlog:cds=off"); // classes CDS cannot hold are loaded as usual; no need to say so
            }
            command.add("-jar");
            command.add(launch.jar().toString());
        } else {
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add("io.durablecheckout.orchestrator.CheckoutApplication");
        }
        command.add("--spring.datasource.url=" + jdbcUrl);
        command.add("--spring.datasource.username=postgres");
        command.add("--spring.datasource.password=");
        command.add("--server.port=" + port);
        return command;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The jar to start and its class-data sharing archive (null when training failed: nodes then start without). */
    record Launch(Path jar, Path archive) {
    }

    private static Launch launch;

    /**
     * Once per test JVM: extract the packaged jar (Spring Boot's {@code jarmode=tools extract}, since CDS cannot
     * archive classes from nested jars) and record the classes a start loads into an archive, with a training run
     * that stops right after the context refresh, on a database of its own on the caller's server. Any failure
     * falls back to the extracted jar without an archive: slower, never wrong.
     */
    private static synchronized Launch trainedLaunch(Path jar, String jdbcUrl) {
        if (launch != null) {
            return launch;
        }
        Path dir = jar.resolveSibling(jar.getFileName().toString().replace(".jar", "-app"));
        Path extracted = dir.resolve(jar.getFileName());
        Path archive = dir.resolve("app.jsa");
        try {
            Path log = Path.of("target", "node-cds-training.log");
            Process extract = new ProcessBuilder(java(), "-Djarmode=tools", "-jar", jar.toString(), "extract",
                    "--destination", dir.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
            if (!extract.waitFor(120, TimeUnit.SECONDS) || extract.exitValue() != 0 || !Files.exists(extracted)) {
                launch = new Launch(jar, null);
                return launch;
            }
            launch = new Launch(extracted, null);
            String trainingDb = jdbcUrl.replaceFirst("/[^/?]*(\\?.*)?$", "/cds_training$1");
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl, "postgres", "");
                 java.sql.Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE cds_training");
            }
            List<String> training = new ArrayList<>(List.of(java()));
            training.addAll(TEST_NODE_JVM);
            training.addAll(List.of("-Xmx512m", "-XX:ArchiveClassesAtExit=" + archive, "-Xlog:cds=off",
                    "-Dspring.context.exit=onRefresh", "-jar", extracted.toString(),
                    "--spring.datasource.url=" + trainingDb, "--spring.datasource.username=postgres",
                    "--spring.datasource.password=", "--server.port=0"));
            training.addAll(DEMO_ON_EXTERNAL_DATABASE);
            Process train = new ProcessBuilder(training).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            if (train.waitFor(180, TimeUnit.SECONDS) && train.exitValue() == 0 && Files.exists(archive)) {
                launch = new Launch(extracted, archive);
            } else {
                train.destroyForcibly();
            }
        } catch (IOException | java.sql.SQLException e) {
            // no archive: the nodes start without one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (launch == null) {
            launch = new Launch(jar, null);
        }
        System.out.println("test nodes start from " + launch.jar() + (launch.archive() == null
                ? " without a class-data sharing archive (see target/node-cds-training.log)"
                : " with the class-data sharing archive " + launch.archive()));
        return launch;
    }

    /** How a start that was expected to end by itself ended: exit code (null if still running) and its output. */
    public record Exit(Integer code, String output) {
    }

    /** Starts the application with exactly these arguments (no opt-ins) and waits for it to exit by itself. */
    public static Exit runUntilExit(String name, String jdbcUrl, List<String> args, Duration timeout)
            throws IOException, InterruptedException {
        List<String> command = command(jdbcUrl, freePort(), List.of("-Xmx512m"));
        command.addAll(args);
        Path log = Path.of("target", name + ".log");
        Files.deleteIfExists(log);
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!exited) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        return new Exit(exited ? process.exitValue() : null, Files.readString(log));
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Waits for the process to end by itself (e.g. an armed crash point); true if it did. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Sends a signal by name, e.g. STOP or CONT. */
    public void signal(String name) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGKILL: no shutdown hooks, no flush, no goodbye. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    public boolean healthy() {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://localhost:" + port + "/actuator/health")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("UP");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Path jarCopy;

    /**
     * A private copy of the packaged jar, taken once per test JVM: a build running alongside (another module, a
     * benchmark) may rewrite target/*.jar while nodes start from it, and a half-written jar fails in odd ways.
     */
    private static synchronized Path packagedJar() throws IOException {
        if (jarCopy != null) {
            return jarCopy;
        }
        Path target = Path.of("target");
        if (!Files.isDirectory(target)) {
            return null;
        }
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(target, "checkout-orchestrator-*.jar")) {
            for (Path jar : jars) {
                Path copy = Files.createTempFile(target.toAbsolutePath(), "node-", ".jar");
                Files.copy(jar, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                copy.toFile().deleteOnExit();
                jarCopy = copy;
                return copy;
            }
        }
        return null;
    }
}
