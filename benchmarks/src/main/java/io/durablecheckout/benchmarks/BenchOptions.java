package io.durablecheckout.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's command line ({@code --name=value}; flags without a value). Defaults follow docs/benchmarks.md and
 * the standard workload (N = 5,000 after 500 warm-up, C = 8, 32, 64, both modes, both transports).
 */
record BenchOptions(
        String jdbcUrl,
        String user,
        String password,
        int n,
        int warmup,
        int jvmWarmup,
        List<Integer> concurrency,
        List<String> modes,
        List<String> transports,
        boolean matrix,
        boolean skipCeiling,
        boolean lag,
        int lagCheckouts,
        Duration lagWait,
        boolean recovery,
        int recoveryCheckouts,
        Path jar,
        List<String> appJvmOptions,
        boolean replay,
        int replayCheckouts,
        int replayCopies,
        List<String> appProperties,
        long seed,
        double quietBelowPercent,
        Duration quietWaitMax,
        boolean burst,
        int burstSeconds,
        double burstFactor,
        double burstRate,
        int burstCalibration,
        int burstBacklogLimit,
        boolean overload,
        int overloadSeconds,
        int overloadClients,
        double overloadRate,
        int overloadBaseline,
        List<Integer> clusterNodes,
        boolean simulatorProcess,
        Path statementsDir,
        List<Double> storeCurve,
        boolean storeCurveKeep,
        int hotSkus) {

    static final String USAGE = """
            java -jar benchmarks/target/checkout-benchmarks.jar [options]: the standard checkout workload
            (docs/benchmarks.md), from the repository's root
              --jdbc-url=URL        PostgreSQL to use; its public schema is DROPPED and recreated per configuration.
                                    Unset: a fresh embedded PostgreSQL in a temporary directory (durable commits).
              --user=, --password=  credentials for --jdbc-url (default postgres / empty)
              --n=5000 --warmup=500 counted and warm-up checkouts per configuration
              --jvm-warmup=2000     checkouts run in each of 4 rounds (a fresh application each), before all
                                    configurations and not counted, so the JIT compiler has compiled the
                                    application before the first one (0: none)
              --concurrency=8,32,64 checkouts kept in flight
              --modes=tuned,baseline  --transports=inprocess,http
              --skip-matrix         run none of the (mode, transport, C) configurations
              --skip-ceiling        do not measure the PostgreSQL commit ceiling (10 s per configuration)
              --lag                 deadline-lag run (no activity workers, 2 s leases)
                  --lag-checkouts=500 --lag-wait=25s
              --recovery            kill -9 with checkouts in flight, restart, time until all are done
                  --recovery-checkouts=1000
                  --jar=PATH          the packaged application to start (default: a private copy of
                                      orchestrator/target/checkout-orchestrator-*.jar, built by ./mvnw package)
                  --app-jvm-option=OPT  (repeatable) JVM option for the separately started application
              --replay              rebuild of the checkout-summary read model, events/s
                  --replay-checkouts=10000
                  --replay-copies=N   then copy those checkouts' events N times under new ids (SQL, no workflow
                                      runs), and time the offline rebuild of (N+1) x checkouts while a client reads
                                      checkouts over HTTP (read latency during a rebuild)
              --burst               open-loop overload over HTTP: the processing rate is measured (a closed loop of
                                    --burst-calibration=1500 checkouts), then requests are sent on schedule at
                                    --burst-factor=2 times it for --burst-seconds=30 (or at --burst-rate=N per s),
                                    with checkout.admission.max-backlog=--burst-backlog-limit=1000; reports 202s,
                                    429s, lease expiries and repeated executions (from the application's metrics)
              --overload            issue 54: tenant demo floods with tok_slow (1 s per payment) from
                                    --overload-clients=6 closed-loop clients for --overload-seconds=60, while a second
                                    tenant (made through the admin API) submits tok_approve at --overload-rate=5 per s
                                    (alone first: --overload-baseline=50 checkouts); waits until all are terminal;
                                    reports claims per intent, expiries, re-issues, completions/s, its p99 and 429s
              --cluster=1,2,3       throughput with that many application processes on one PostgreSQL (HTTP,
                                    round-robin; C from --concurrency; --jar, --app-jvm-option as for --recovery)
                                    (--burst too starts the packaged application as its own process)
              --app-property=k=v    (repeatable) extra property for every application started (experiments only)
              --seed=42             seed of the generated checkouts
              --hot-skus=10         every checkout's items drawn from SKU-0001 to SKU-0010 only (the matrix and
                                    --cluster; 1,000,000 units each, so none runs out); each line reports the
                                    PostgreSQL deadlocks (pg_stat_database), rejected reservations and errors
              --store-curve=0,1,4,12  issue 51's cost curve: fills the store with copies of finished histories (SQL)
                                    to that many million events, and at each size measures C = 32 over HTTP
                                    (--n, --warmup; work units, WAL per checkout), the offline read-model rebuild,
                                    the dashboard's list and filters, replay --all, table sizes and recovery of
                                    --recovery-checkouts in flight (--jar, --app-jvm-option as for --recovery)
                  --store-curve-keep  measure C = 32 and recovery only, on the store as --jdbc-url holds it (not
                                      reset; grown if smaller): the same JVM history for two sizes, run one after
                                      the other, so the first size measured is not the one a colder JIT slows
              --simulator=process   the payment provider simulator as its own process (the packaged jar, its own
                                    database on the same server), as a real provider would be; =inprocess: inside
                                    the application, as the embedded demo runs it
              --statements-dir=DIR  write each configuration's pg_stat_statements (query, calls, rows) there as TSV
              --wait-quiet=PCT      before each run, wait until the machine is less than PCT % busy (others compiling)
                  --wait-quiet-max=10m  but no longer than this (the JSON line records how busy it was)
            """;

    static BenchOptions parse(String[] args) {
        String jdbcUrl = null;
        String user = "postgres";
        String password = "";
        boolean simulatorProcess = true;
        Path statementsDir = null;
        int n = 5000;
        int warmup = 500;
        int jvmWarmup = 2000;
        List<Integer> concurrency = List.of(8, 32, 64);
        List<String> modes = List.of("tuned", "baseline");
        List<String> transports = List.of("inprocess", "http");
        boolean matrix = true;
        boolean skipCeiling = false;
        boolean lag = false;
        int lagCheckouts = 500;
        Duration lagWait = Duration.ofSeconds(25);
        boolean recovery = false;
        int recoveryCheckouts = 1000;
        Path jar = null;
        List<String> appJvmOptions = new ArrayList<>();
        boolean replay = false;
        int replayCheckouts = 10_000;
        int replayCopies = 0;
        List<String> appProperties = new ArrayList<>();
        long seed = 42;
        double quietBelow = 0;
        Duration quietWaitMax = Duration.ofMinutes(10);
        boolean burst = false;
        int burstSeconds = 30;
        double burstFactor = 2.0;
        double burstRate = 0;
        int burstCalibration = 1500;
        int burstBacklogLimit = 1000;
        boolean overload = false;
        int overloadSeconds = 60;
        int overloadClients = 6;
        double overloadRate = 5;
        int overloadBaseline = 50;
        List<Integer> clusterNodes = List.of();
        List<Double> storeCurve = List.of();
        boolean storeCurveKeep = false;
        int hotSkus = 0;
        for (String arg : args) {
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + arg + "\n" + USAGE);
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
            String value = eq < 0 ? null : arg.substring(eq + 1);
            switch (name) {
                case "jdbc-url" -> jdbcUrl = value == null || value.isBlank() ? null : value;
                case "user" -> user = require(name, value);
                case "password" -> password = value == null ? "" : value;
                case "n" -> n = positive(name, value);
                case "warmup" -> warmup = integer(name, value);
                case "jvm-warmup" -> jvmWarmup = integer(name, value);
                case "concurrency" -> concurrency = list(name, value).stream().map(v -> integer(name, v)).toList();
                case "modes" -> modes = oneOf(name, list(name, value), "tuned", "baseline");
                case "transports" -> transports = oneOf(name, list(name, value), "inprocess", "http");
                case "skip-matrix" -> matrix = false;
                case "skip-ceiling" -> skipCeiling = true;
                case "lag" -> lag = true;
                case "lag-checkouts" -> lagCheckouts = positive(name, value);
                case "lag-wait" -> lagWait = duration(name, value);
                case "recovery" -> recovery = true;
                case "recovery-checkouts" -> recoveryCheckouts = positive(name, value);
                case "jar" -> jar = Path.of(require(name, value));
                case "app-jvm-option" -> appJvmOptions.add(require(name, value));
                case "replay" -> replay = true;
                case "replay-checkouts" -> replayCheckouts = positive(name, value);
                case "replay-copies" -> replayCopies = integer(name, value);
                case "app-property" -> appProperties.add(require(name, value));
                case "seed" -> seed = wholeNumber(name, value);
                case "wait-quiet" -> quietBelow = number(name, value);
                case "wait-quiet-max" -> quietWaitMax = duration(name, value);
                case "burst" -> burst = true;
                case "burst-seconds" -> burstSeconds = positive(name, value);
                case "burst-factor" -> burstFactor = number(name, value);
                case "burst-rate" -> burstRate = number(name, value);
                case "burst-calibration" -> burstCalibration = positive(name, value);
                case "burst-backlog-limit" -> burstBacklogLimit = integer(name, value);
                case "overload" -> overload = true;
                case "overload-seconds" -> overloadSeconds = positive(name, value);
                case "overload-clients" -> overloadClients = positive(name, value);
                case "overload-rate" -> overloadRate = number(name, value);
                case "overload-baseline" -> overloadBaseline = positive(name, value);
                case "cluster" -> clusterNodes = list(name, value).stream().map(v -> integer(name, v)).toList();
                case "simulator" -> simulatorProcess = oneOf(name, List.of(require(name, value)), "process",
                        "inprocess").get(0).equals("process");
                case "statements-dir" -> statementsDir = Path.of(require(name, value));
                case "store-curve-keep" -> storeCurveKeep = true;
                case "hot-skus" -> hotSkus = positive(name, value);
                case "store-curve" -> storeCurve = list(name, value).stream().map(v -> number(name, v)).sorted().toList();
                case "help" -> throw new IllegalArgumentException(USAGE);
                default -> throw new IllegalArgumentException("unknown option --" + name + "\n" + USAGE);
            }
        }
        return new BenchOptions(jdbcUrl, user, password, n, warmup, jvmWarmup, concurrency, modes, transports, matrix,
                skipCeiling, lag, lagCheckouts, lagWait, recovery, recoveryCheckouts, jar, List.copyOf(appJvmOptions),
                replay, replayCheckouts, replayCopies, List.copyOf(appProperties), seed, quietBelow, quietWaitMax, burst, burstSeconds,
                burstFactor, burstRate, burstCalibration, burstBacklogLimit, overload, overloadSeconds, overloadClients,
                overloadRate, overloadBaseline, clusterNodes, simulatorProcess, statementsDir, storeCurve,
                storeCurveKeep, hotSkus);
    }

    private static String require(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + name + " needs a value\n" + USAGE);
        }
        return value;
    }

    /** 25s, 10m, 1h */
    private static Duration duration(String name, String value) {
        try {
            return Duration.parse("PT" + require(name, value).toUpperCase(Locale.ROOT));
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("--" + name + ": " + value + " is not a duration such as 25s or 10m");
        }
    }

    private static int integer(String name, String value) {
        long v = wholeNumber(name, value);
        if (v != (int) v) {
            throw new IllegalArgumentException("--" + name + ": " + value + " is too large");
        }
        return (int) v;
    }

    private static long wholeNumber(String name, String value) {
        try {
            return Long.parseLong(require(name, value));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": " + value + " is not a whole number");
        }
    }

    private static double number(String name, String value) {
        try {
            return Double.parseDouble(require(name, value));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + ": " + value + " is not a number");
        }
    }

    private static int positive(String name, String value) {
        int v = integer(name, value);
        if (v <= 0) {
            throw new IllegalArgumentException("--" + name + " must be positive");
        }
        return v;
    }

    private static List<String> list(String name, String value) {
        return Arrays.stream(require(name, value).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private static List<String> oneOf(String name, List<String> values, String... allowed) {
        List<String> lower = values.stream().map(v -> v.toLowerCase(Locale.ROOT)).toList();
        for (String v : lower) {
            if (!Arrays.asList(allowed).contains(v)) {
                throw new IllegalArgumentException("--" + name + ": " + v + " is not one of " + Arrays.toString(allowed));
            }
        }
        return lower;
    }
}
