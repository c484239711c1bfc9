package io.durablecheckout.benchmarks;

import io.durablecheckout.orchestrator.it.support.NodeProcess;

import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;

/**
 * The payment provider simulator as its own process, as a real provider would be (issue 22): the packaged jar with
 * only the simulator switched on (no orchestrator, no activity workers, no demo), on a database of its own on the same
 * server ({@value #DATABASE}), so its statements and CPU are counted apart from the application's. The application
 * is then started with its own simulator off and {@code checkout.payments.provider-url} pointing here. One process
 * per harness run: its ledger is keyed by the payments' idempotency keys, which are new in every configuration.
 */
final class SimulatorProcess implements AutoCloseable {

    static final String DATABASE = "checkout_bench_simulator";

    private final NodeProcess node;
    private final int port;

    private SimulatorProcess(NodeProcess node, int port) {
        this.node = node;
        this.port = port;
    }

    static SimulatorProcess start(BenchDatabase db, BenchOptions options) throws Exception {
        db.ensureDatabase(DATABASE);
        int port = NodeProcess.freePort();
        AppProcesses processes = new AppProcesses(db, options, "simulator");
        List<String> args = List.of(
                "--checkout.orchestrator.enabled=false",
                "--checkout.activities.enabled=false",
                "--checkout.demo.enabled=false",
                "--checkout.simulator.enabled=true",
                "--checkout.simulator.allow-with-external-database=true",
                "--checkout.simulator.port=" + port,
                "--checkout.processing.node-id=bench-simulator");
        NodeProcess node = NodeProcess.launch(new NodeProcess.Launch(processes.jar(), options.appJvmOptions(),
                db.urlOf(DATABASE), db.user(), db.password(), args,
                processes.logDirectory().resolve("simulator.log")));
        AppProcesses.awaitHealthy(node);
        Report.progress("provider simulator: its own process (pid %d), http://127.0.0.1:%d, database %s, log %s",
                node.pid(), port, DATABASE, node.log());
        return new SimulatorProcess(node, port);
    }

    /** What the application is started with to call this simulator instead of its own. */
    List<String> applicationProperties() {
        return List.of("checkout.simulator.enabled=false",
                "checkout.payments.provider-url=http://127.0.0.1:" + port + "/simulator/provider");
    }

    Stream<ProcessHandle> processes() {
        return Stream.of(node.handle());
    }

    @Override
    public void close() throws InterruptedException {
        node.close();
    }
}
