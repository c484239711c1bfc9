package io.durablecheckout.benchmarks;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Memory and CPU as Linux reports them ({@code /proc}), so the figures include what the JVM's own counters miss
 * (metaspace, thread stacks, code cache, direct buffers).
 */
final class Resources {

    /** The unit of /proc's CPU times (USER_HZ): 100 on Linux, read once from {@code getconf CLK_TCK}. */
    static final long CLOCK_TICKS_PER_SECOND = clockTicksPerSecond();

    private Resources() {
    }

    private static long clockTicksPerSecond() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String answer = new String(getconf.getInputStream().readAllBytes()).trim();
            getconf.waitFor();
            return Long.parseLong(answer);
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }

    /** Peak resident set (VmHWM) of a process, in MB; {@code "self"} for this JVM. */
    static double peakRssMb(String pid) {
        return statusKb(pid, "VmHWM:") / 1024.0;
    }

    static double rssMb(String pid) {
        return statusKb(pid, "VmRSS:") / 1024.0;
    }

    /**
     * Resets this process's VmHWM to its current RSS (Linux ≥ 4.0: write 5 to clear_refs), after a full GC so the heap
     * the previous configuration grew is given back first. Every configuration runs in this JVM, so without this the
     * peak would be the peak of all configurations so far. False if the kernel refused.
     */
    static boolean resetPeakRss() {
        System.gc();
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static long statusKb(String pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException e) {
            // not Linux, or the process is gone
        }
        return -1;
    }

    static double loadAverage1m() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** Milliseconds this JVM's JIT compilers have spent so far (0 where the JVM does not say). */
    static long jitMillis() {
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /**
     * CPU milliseconds the JIT compiler threads of this JVM have used so far (user + system, from /proc; -1 where
     * there is no /proc). {@link #jitMillis} is elapsed compile time summed over the compiler threads, which on a busy
     * machine includes the time they waited for a core: this is what compiling cost. Compiler threads that the JVM
     * started and stopped again (dynamic compiler threads, more than two cores) are not counted: a lower bound there.
     */
    static long jitCpuMillis() {
        long ticks = 0;
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).contains("CompilerThre")) { // "C2 CompilerThre"
                        ticks += ticksIn(task.resolve("stat"));
                    }
                } catch (IOException | RuntimeException gone) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks * 1000 / CLOCK_TICKS_PER_SECOND;
    }

    static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    /**
     * CPU time (user + system, in clock ticks, as /proc/stat counts) of each of the given processes, by pid. Read at
     * the start and end of a run, the difference tells how much of the machine the database server used.
     */
    static java.util.Map<Long, Long> cpuTicks(java.util.stream.Stream<ProcessHandle> processes) {
        java.util.Map<Long, Long> ticks = new java.util.HashMap<>();
        processes.forEach(p -> {
            long t = cpuTicks(Long.toString(p.pid()));
            if (t >= 0) {
                ticks.put(p.pid(), t);
            }
        });
        return ticks;
    }

    static long cpuTicks(String pid) {
        try {
            return ticksIn(Path.of("/proc", pid, "stat"));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * A process's CPU by thread, in seconds, threads grouped by name (digits and a trailing index dropped, so a pool's
     * threads add up: "C2 CompilerThre", "WorkPackage[payments]-"); empty if the process is gone.
     */
    static java.util.Map<String, Double> cpuSecondsByThread(long pid) {
        java.util.Map<String, Double> byName = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            tasks.forEach(task -> {
                try {
                    String name = Files.readString(task.resolve("comm")).trim().replaceAll("[0-9]+$", "")
                            .replaceAll("-[0-9]+-", "-");
                    byName.merge(name, ticksIn(task.resolve("stat")) / (double) CLOCK_TICKS_PER_SECOND, Double::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended between the listing and the read
                }
            });
        } catch (IOException | RuntimeException e) {
            return java.util.Map.of();
        }
        return byName;
    }

    /** utime + stime of a process's or a thread's {@code stat} file, in clock ticks. */
    private static long ticksIn(Path stat) throws IOException {
        String line = Files.readString(stat);
        // fields after the command name (which may contain spaces) start after the last ')'
        String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
    }

    /** Ticks used between two {@link #cpuTicks} readings; processes that started in between count in full. */
    static long ticksBetween(java.util.Map<Long, Long> before, java.util.Map<Long, Long> after) {
        long total = 0;
        for (var e : after.entrySet()) {
            total += Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0L));
        }
        return total;
    }

    /** Busy and total jiffies of the whole machine (first line of /proc/stat), to tell how full the cores were. */
    record HostCpu(long busy, long total) {
        static HostCpu now() {
            try {
                String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
                long total = 0;
                for (int i = 1; i < f.length && i <= 8; i++) {
                    total += Long.parseLong(f[i]);
                }
                long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle + iowait
                return new HostCpu(total - idle, total);
            } catch (IOException | RuntimeException e) {
                return new HostCpu(0, 0);
            }
        }

        /**
         * How busy the machine is over the next {@code millis} while the harness itself waits: the load others put on
         * it (someone compiling) before a configuration starts. The load average is no help here: PostgreSQL backends
         * waiting for fsync count in it.
         */
        static double busyPercentOver(long millis) throws InterruptedException {
            HostCpu before = now();
            Thread.sleep(millis);
            return now().busyPercentSince(before);
        }

        double busyPercentSince(HostCpu before) {
            long total = this.total - before.total;
            return total <= 0 ? Double.NaN : 100.0 * (busy - before.busy) / total;
        }

        /** Percent of the machine's capacity that {@code ticks} of CPU time were, between the two readings. */
        double percentOfCapacity(HostCpu before, long ticks) {
            long total = this.total - before.total;
            return total <= 0 ? Double.NaN : 100.0 * ticks / total;
        }
    }
}
