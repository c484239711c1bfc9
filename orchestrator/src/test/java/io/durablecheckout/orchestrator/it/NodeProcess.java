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

    /** The JVM and the application with its database and port, nothing else. */
    private static List<String> command(String jdbcUrl, int port, List<String> jvmOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        Path jar = packagedJar();
        if (jar != null) {
            command.add("-jar");
            command.add(jar.toString());
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
