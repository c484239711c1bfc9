package io.durablecheckout.orchestrator.it.support;

import org.awaitility.core.ConditionTimeoutException;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * The application as a separate operating-system process (the packaged jar when it exists, else this test's
 * classpath), so a test can kill it with SIGKILL and start it again, as an operator would.
 * <p>
 * The one launcher of application processes: the integration tests use {@link #start}, the benchmark harness
 * (module {@code benchmarks}, through this module's test jar, which holds only this class) uses {@link #launch}
 * with its own jar, JVM options, database credentials and log file. Both go through one command line
 * ({@link #command}); test nodes add the test JVM options and the trained class-data sharing archive.
 */
public final class NodeProcess implements AutoCloseable {

    /**
     * Test nodes run the demo (keys, simulator, generated webhook secret) on their own PostgreSQL, on purpose; the
     * nodes of one JVM share one data key store (as the nodes of one deployment must).
     */
    public static final List<String> DEMO_ON_EXTERNAL_DATABASE = List.of(
            "--checkout.demo.allow-with-external-database=true",
            "--checkout.simulator.allow-with-external-database=true",
            "--checkout.mail.sink.allow-with-external-database=true",
            "--checkout.demo.generate-webhook-secret=true",
            "--checkout.personal-data.key-store=" + Path.of("target", "node-keys-" + ProcessHandle.current().pid())
                    .toAbsolutePath());

    /** The port the web server says it bound; 0 until it has said so. */
    private static final Pattern BOUND = Pattern.compile("Tomcat started on port (\\d+)");

    private final Process process;
    private final Path log;
    /** Where this process's output begins in its log (a restarted node appends to the same file). */
    private final long logStart;
    private volatile int port;

    private NodeProcess(Process process, Path log, long logStart) {
        this.process = process;
        this.log = log;
        this.logStart = logStart;
    }

    public static NodeProcess start(String name, String jdbcUrl, List<String> extraArgs) throws IOException {
        return start(name, jdbcUrl, extraArgs, List.of("-Xmx512m"));
    }

    /** @param jvmOptions e.g. a small heap for several nodes on one machine (ScaleOutIT) */
    public static NodeProcess start(String name, String jdbcUrl, List<String> extraArgs, List<String> jvmOptions)
            throws IOException {
        List<String> args = new ArrayList<>(DEMO_ON_EXTERNAL_DATABASE);
        args.addAll(extraArgs);
        NodeProcess node = launch(testLaunch(jdbcUrl, jvmOptions, args, Path.of("target", name + ".log")));
        node.awaitHealthy(Duration.ofSeconds(180), Duration.ofMillis(250));
        return node;
    }

    /**
     * What a process is started with.
     *
     * @param jar        the packaged application; null: this JVM's class path and {@code CheckoutApplication}
     * @param jvmOptions before the jar, e.g. {@code -Xmx512m}
     * @param args       after the database and the port: opt-ins, node id, any {@code --property=value}
     * @param log        the process's stdout and stderr, appended
     */
    public record Launch(Path jar, List<String> jvmOptions, String jdbcUrl, String user, String password,
                         List<String> args, Path log) {
    }

    /**
     * Starts the process and returns at once; {@link #awaitHealthy} waits for it to serve. The web server binds a port
     * of its own choosing, read back from the log: a port picked here and handed over was free when picked, but
     * another process could take it in the seconds before the node bound it (two nodes started together once got the
     * same one, and the health check of the node that failed was answered by the other).
     */
    public static NodeProcess launch(Launch launch) throws IOException {
        long logStart = Files.exists(launch.log()) ? Files.size(launch.log()) : 0;
        Process process = new ProcessBuilder(command(launch)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(launch.log().toFile())).start();
        return new NodeProcess(process, launch.log(), logStart);
    }

    /**
     * Every test node runs with the C1 compiler only and the serial collector, from the jar extracted with a class-data
     * sharing archive trained once per test JVM (see {@link #trainedJar}): a node then starts on about a third of
     * the CPU (measured on this 2-core machine: 21 s of CPU → 6 s), which is most of what the multi-process tests cost.
     * Test nodes run a few dozen checkouts, so the faster compiler buys nothing there. (The benchmark's nodes, started
     * with {@link #launch} directly, run as an operator would start them: none of this.)
     */
    public static final List<String> TEST_NODE_JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    /** A test node: the test JVM options, the trained jar and its archive, the embedded server's credentials. */
    private static Launch testLaunch(String jdbcUrl, List<String> jvmOptions, List<String> args, Path log)
            throws IOException {
        List<String> jvm = new ArrayList<>();
        TEST_NODE_JVM.stream().filter(o -> !jvmOptions.contains(o)).forEach(jvm::add);
        jvm.addAll(jvmOptions);
        Path jar = packagedJar();
        if (jar != null) {
            TrainedJar trained = trainedJar(jar, jdbcUrl);
            if (trained.archive() != null) {
                jvm.add("-XX:SharedArchiveFile=" + trained.archive());
                jvm.add("-Xlog:cds=off"); // classes CDS cannot hold are loaded as usual; no need to say so
            }
            jar = trained.jar();
        }
        return new Launch(jar, jvm, jdbcUrl, "postgres", "", args, log);
    }

    /** The JVM, the application with its database and any free port, then the launch's arguments. */
    private static List<String> command(Launch launch) {
        List<String> command = new ArrayList<>();
        command.add(java());
        command.addAll(launch.jvmOptions());
        if (launch.jar() != null) {
            command.add("-jar");
            command.add(launch.jar().toString());
        } else {
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add("io.durablecheckout.orchestrator.CheckoutApplication");
        }
        command.add("--spring.datasource.url=" + launch.jdbcUrl());
        command.add("--spring.datasource.username=" + launch.user());
        command.add("--spring.datasource.password=" + launch.password());
        command.add("--server.port=0");
        command.addAll(launch.args());
        return command;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The jar to start and its class-data sharing archive (null when training failed: nodes then start without). */
    private record TrainedJar(Path jar, Path archive) {
    }

    private static TrainedJar trained;

    /**
     * Once per test JVM: extract the packaged jar (Spring Boot's {@code jarmode=tools extract}, since CDS cannot
     * archive classes from nested jars) and record the classes a start loads into an archive, with a training run
     * that stops right after the context refresh, on a database of its own on the caller's server. Any failure
     * falls back to the extracted jar without an archive: slower, never wrong.
     */
    private static synchronized TrainedJar trainedJar(Path jar, String jdbcUrl) {
        if (trained != null) {
            return trained;
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
                trained = new TrainedJar(jar, null);
                return trained;
            }
            trained = new TrainedJar(extracted, null);
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
                trained = new TrainedJar(extracted, archive);
            } else {
                train.destroyForcibly();
            }
        } catch (IOException | java.sql.SQLException e) {
            // no archive: the nodes start without one
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (trained == null) {
            trained = new TrainedJar(jar, null);
        }
        System.out.println("test nodes start from " + trained.jar() + (trained.archive() == null
                ? " without a class-data sharing archive (see target/node-cds-training.log)"
                : " with the class-data sharing archive " + trained.archive()));
        return trained;
    }

    /** How a start that was expected to end by itself ended: exit code (null if still running) and its output. */
    public record Exit(Integer code, String output) {
    }

    /** Starts the application with exactly these arguments (no opt-ins) and waits for it to exit by itself. */
    public static Exit runUntilExit(String name, String jdbcUrl, List<String> args, Duration timeout)
            throws IOException, InterruptedException {
        Path log = Path.of("target", name + ".log");
        List<String> command = command(testLaunch(jdbcUrl, List.of("-Xmx512m"), args, log));
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

    /**
     * Waits until the health endpoint answers UP.
     *
     * @return milliseconds from this call until it did
     * @throws IllegalStateException if the process exited first, or did not become healthy within {@code limit}
     */
    public long awaitHealthy(Duration limit, Duration pollInterval) {
        long start = System.nanoTime();
        try {
            // only this node's health decides: a test server's thread failing on a connection that a killed node
            // reset (GreenMail's 'Connection reset') is rethrown by Awaitility's default here, failing a matrix row
            await().dontCatchUncaughtExceptions().atMost(limit).pollInterval(pollInterval)
                    .until(() -> !process.isAlive() || healthy());
        } catch (ConditionTimeoutException e) {
            throw new IllegalStateException("node not healthy within " + limit + "; see " + log, e);
        }
        if (!process.isAlive()) {
            throw new IllegalStateException("node exited with " + process.exitValue() + "; see " + log);
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** The port this process's web server bound. */
    public int port() {
        int bound = boundPort();
        if (bound == 0) {
            throw new IllegalStateException("the node has not bound its web port yet; see " + log);
        }
        return bound;
    }

    /** The port from this process's own part of the log, once the web server has said it; else 0. */
    private int boundPort() {
        if (port != 0) {
            return port;
        }
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            if (file.length() <= logStart) {
                return 0;
            }
            byte[] tail = new byte[(int) (file.length() - logStart)];
            file.seek(logStart);
            file.readFully(tail);
            Matcher m = BOUND.matcher(new String(tail, StandardCharsets.UTF_8));
            if (m.find()) {
                port = Integer.parseInt(m.group(1));
            }
            return port;
        } catch (IOException e) {
            return 0;
        }
    }

    public long pid() {
        return process.pid();
    }

    public ProcessHandle handle() {
        return process.toHandle();
    }

    /** Where the process's output goes. */
    public Path log() {
        return log;
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** Waits for the process to end by itself (e.g. an armed crash point); true if it did. */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exit code once the process has ended (143 after a SIGTERM it handled to the end), else null. */
    public Integer exitCode() {
        return process.isAlive() ? null : process.exitValue();
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
        int port = boundPort();
        if (port == 0) {
            return false;
        }
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

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static final Map<Path, Path> jarCopies = new HashMap<>();

    /** The packaged application of this module's build ({@code target/}), or null before {@code package}. */
    private static Path packagedJar() throws IOException {
        return packagedJar(Path.of("target"));
    }

    /**
     * A private copy of the packaged (executable) application jar in {@code targetDirectory}, taken once per JVM: a
     * build running alongside (another module, a benchmark) may rewrite target/*.jar while nodes start from it, and a
     * half-written jar fails in odd ways. The executable jar is the one with a {@code Start-Class}: the same
     * directory holds the plain classes jar and the test jar. Null if there is none.
     */
    public static synchronized Path packagedJar(Path targetDirectory) throws IOException {
        Path key = targetDirectory.toAbsolutePath().normalize();
        Path cached = jarCopies.get(key);
        if (cached != null) {
            return cached;
        }
        if (!Files.isDirectory(key)) {
            return null;
        }
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(key, "checkout-orchestrator-*.jar")) {
            for (Path jar : jars) {
                if (!executable(jar)) {
                    continue;
                }
                Path copy = Files.createTempFile(key, "node-", ".jar");
                Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
                copy.toFile().deleteOnExit();
                jarCopies.put(key, copy);
                return copy;
            }
        }
        return null;
    }

    private static boolean executable(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            return manifest != null && manifest.getMainAttributes().getValue("Start-Class") != null;
        } catch (IOException e) {
            return false; // being written, or not a jar
        }
    }
}
