package io.durablecheckout.benchmarks;

import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The CPU split of a measured window (/proc): the application's processes (the harness's own JVM for an in-process
 * configuration, the nodes for the cluster run), the PostgreSQL server, and the whole machine. Started just before
 * the counted checkouts, stopped just after.
 */
final class CpuWindow {

    private final Supplier<Stream<ProcessHandle>> application;
    private final BenchDatabase db;
    private final Map<Long, Long> applicationBefore;
    private final Map<Long, Long> postgresBefore;
    private final Resources.HostCpu hostBefore;
    private final Supplier<Stream<ProcessHandle>> simulator;
    private final Map<Long, Long> simulatorBefore;

    private CpuWindow(Supplier<Stream<ProcessHandle>> application, BenchDatabase db,
                      Supplier<Stream<ProcessHandle>> simulator) {
        this.application = application;
        this.db = db;
        this.simulator = simulator;
        this.simulatorBefore = Resources.cpuTicks(simulator.get());
        this.applicationBefore = Resources.cpuTicks(application.get());
        this.postgresBefore = Resources.cpuTicks(db.serverProcesses());
        this.hostBefore = Resources.HostCpu.now();
    }

    static CpuWindow start(Supplier<Stream<ProcessHandle>> application, BenchDatabase db) {
        return new CpuWindow(application, db, Stream::empty);
    }

    /** With the provider simulator's own process, counted apart ({@link Split#simulatorTicks}). */
    static CpuWindow start(Supplier<Stream<ProcessHandle>> application, BenchDatabase db,
                           Supplier<Stream<ProcessHandle>> simulator) {
        return new CpuWindow(application, db, simulator);
    }

    Split stop() {
        Resources.HostCpu hostAfter = Resources.HostCpu.now();
        long applicationTicks = Resources.ticksBetween(applicationBefore, Resources.cpuTicks(application.get()));
        long postgresTicks = Resources.ticksBetween(postgresBefore, Resources.cpuTicks(db.serverProcesses()));
        long simulatorTicks = Resources.ticksBetween(simulatorBefore, Resources.cpuTicks(simulator.get()));
        return new Split(applicationTicks, postgresTicks, hostAfter.busyPercentSince(hostBefore),
                hostAfter.percentOfCapacity(hostBefore, applicationTicks),
                hostAfter.percentOfCapacity(hostBefore, postgresTicks), simulatorTicks);
    }

    /**
     * @param hostPct        how busy the whole machine was (100 = every core), others included
     * @param applicationPct the application's share of the machine, {@code postgresPct} the server's
     */
    record Split(long applicationTicks, long postgresTicks, double hostPct, double applicationPct,
                 double postgresPct, long simulatorTicks) {

        /** CPU time of the application and PostgreSQL together, per completed checkout (issue 14's measure). */
        double msPerCheckout(long completed) {
            return completed <= 0 ? Double.NaN
                    : (applicationTicks + postgresTicks) * 1000.0 / Resources.CLOCK_TICKS_PER_SECOND / completed;
        }

        /**
         * The JSON fields: {@code host_cpu_busy_pct}, {@code <application>_cpu_pct}, {@code pg_cpu_pct},
         * {@code other_cpu_pct} (everyone else), {@code cpu_ms_per_checkout}.
         */
        void put(Map<String, Object> line, String application, long completed) {
            line.put("host_cpu_busy_pct", Report.round(hostPct, 1));
            line.put(application + "_cpu_pct", Report.round(applicationPct, 1));
            line.put("pg_cpu_pct", Report.round(postgresPct, 1));
            line.put("other_cpu_pct", Report.round(hostPct - applicationPct - postgresPct, 1));
            line.put("cpu_ms_per_checkout", Report.round(msPerCheckout(completed), 2));
        }
    }
}
