package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.FaultMatrix;
import io.durablecheckout.orchestrator.faults.CrashPoint;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

/**
 * The fault matrix (docs/reliability.md). CI runs every crash boundary once, one pause and one database restart, and
 * the mutant run that proves the effect checks fail when a side effect is repeated; the whole matrix, every crash
 * boundary three times plus the pause, database restart, redelivery and random kills (and the mutant runs):
 * {@code ./mvnw -B verify -pl orchestrator -am -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=FaultMatrixIT -Dmatrix=full}
 * Results accumulate in target/reliability/matrix.md.
 */
class FaultMatrixIT {

    /** How many times a crash point is passed before the process kills itself: well inside the workload. */
    static final Map<CrashPoint, Integer> AFTER = Map.ofEntries(
            Map.entry(CrashPoint.INTENT_APPENDED, 12),
            Map.entry(CrashPoint.COMPENSATION_REQUESTED, 2),
            Map.entry(CrashPoint.RESULT_APPENDED, 12),
            Map.entry(CrashPoint.INVENTORY_EFFECT, 6),
            Map.entry(CrashPoint.PAYMENT_EFFECT, 6),
            Map.entry(CrashPoint.CAPTURE_EFFECT, 4),
            Map.entry(CrashPoint.RECONCILIATION_LOOKUP, 1),
            Map.entry(CrashPoint.RECEIPT_EFFECT, 3),
            Map.entry(CrashPoint.SAGA_RECORDED, 10),
            Map.entry(CrashPoint.PROJECTION_UPDATE, 20),
            Map.entry(CrashPoint.LEASE_DEADLINE, 1),
            Map.entry(CrashPoint.RECONCILIATION_DEADLINE, 1),
            Map.entry(CrashPoint.MID_BATCH, 1),
            Map.entry(CrashPoint.HTTP_ACCEPTED, 5));

    /**
     * Short leases, so the dead node's held work is taken over within seconds rather than the default 30 s (the
     * takeover is what recovery from a crash is; its length is a setting). A lease deadline only runs while the node
     * lives if a worker outlasts its lease: park receipt workers.
     */
    static List<String> argsFor(CrashPoint point) {
        // -Dmatrix.mutant=NAME runs the crash rows with a deliberate bug in both nodes (by hand: they must fail)
        String mutant = System.getProperty("matrix.mutant", "");
        if (!mutant.isBlank()) {
            List<String> args = new ArrayList<>(argsForProduct(point));
            args.add("--checkout.fault-injection.mutant=" + mutant);
            return args;
        }
        return argsForProduct(point);
    }

    private static List<String> argsForProduct(CrashPoint point) {
        if (point == CrashPoint.LEASE_DEADLINE) {
            return List.of("--checkout.workflow.lease-duration=1s", "--checkout.fault-injection.park-step=send-receipt",
                    "--checkout.fault-injection.park-token=1", "--checkout.fault-injection.park-duration=3s");
        }
        return SHORT_LEASES;
    }

    /** Longer than a payment call can take here (connect 1 s + request 1.5 s), as the start-up check requires. */
    static final List<String> SHORT_LEASES = List.of("--checkout.workflow.lease-duration=3s",
            "--checkout.workflow.payment-lease-duration=4s");

    /** One row of the matrix: its name, the run, and how its result is judged. */
    record Scenario(String name, Callable<FaultMatrix.Result> run, Consumer<FaultMatrix.Result> verdict) {
    }

    @TestFactory
    Stream<DynamicTest> matrix() {
        boolean full = "full".equalsIgnoreCase(System.getProperty("matrix"));
        int runs = full ? Integer.getInteger("matrix.runs", 3) : 1;
        List<Scenario> scenarios = new ArrayList<>();
        for (CrashPoint point : CrashPoint.values()) {
            IntStream.rangeClosed(1, runs).forEach(run -> scenarios.add(new Scenario(
                    "kill -9 at " + point.slug() + " #" + run,
                    () -> FaultMatrix.crashAt(point, AFTER.get(point), run, argsFor(point)), FaultMatrixIT::check)));
        }
        // At the real edges (the Stripe adapter against a stateful fake of Stripe's API, receipts over SMTP to
        // GreenMail): CI kills at the payment effect (SMTP is judged in CI by the edges' redelivery row below); the
        // full matrix kills at every boundary, and redelivers.
        for (CrashPoint point : full ? List.of(CrashPoint.values()) : List.of(CrashPoint.PAYMENT_EFFECT)) {
            scenarios.add(new Scenario("Stripe and SMTP: kill -9 at " + point.slug() + " #1",
                    () -> FaultMatrix.crashAt(point, AFTER.get(point), 1, argsFor(point), true), FaultMatrixIT::check));
        }
        if (full) {
            scenarios.add(new Scenario("Stripe and SMTP: everything redelivered #1",
                    () -> FaultMatrix.redelivery(1, "", List.of(), true), FaultMatrixIT::check));
        }
        // ... and their counts can fail: a key per call at Stripe charges a redelivered authorization again
        scenarios.add(new Scenario("Stripe and SMTP: mutants stripe-key-per-call, send-message-twice are caught",
                () -> FaultMatrix.redelivery(1, "stripe-key-per-call,send-message-twice", List.of(
                        "--checkout.fault-injection.mutant=call-provider-after-outcome,stripe-key-per-call,"
                                + "send-message-twice"), true), result -> caught(result,
                "1 one PaymentIntent per operation at Stripe", "1 one charge per operation at Stripe",
                "1 one message per operation outside a crash window")));
        if (!full) {
            // regression: a node frozen inside a transaction held row locks and blocked the takeover of its work
            scenarios.add(new Scenario("SIGSTOP past leases and claims #1", () -> FaultMatrix.pause(1), FaultMatrixIT::check));
            scenarios.add(new Scenario("PostgreSQL restart #1", () -> FaultMatrix.databaseRestart(1), FaultMatrixIT::check));
        }
        // The checks can fail: the same run with deliberate bugs must be judged a failure, for the right reasons. Both
        // mutants in one run (one repeats provider calls, the other messages: each is caught by its own check).
        scenarios.add(new Scenario("mutants call-provider-after-outcome, send-message-again, send-message-twice, "
                + "capture-key-per-attempt are caught",
                () -> mutant("call-provider-after-outcome,send-message-again,send-message-twice,capture-key-per-attempt"),
                result -> caught(result,
                "1 no provider call after the operation's outcome was recorded",
                "1 no message sent after it was recorded as sent",
                "1 one message per operation outside a crash window",
                "1 every capture carried one key, the capture's operation id")));
        if (full) {
            IntStream.rangeClosed(1, runs).forEach(run -> {
                scenarios.add(new Scenario("random kill #" + run, () -> FaultMatrix.randomKill(run), FaultMatrixIT::check));
                scenarios.add(new Scenario("SIGSTOP past leases and claims #" + run, () -> FaultMatrix.pause(run), FaultMatrixIT::check));
                scenarios.add(new Scenario("PostgreSQL restart #" + run, () -> FaultMatrix.databaseRestart(run), FaultMatrixIT::check));
                scenarios.add(new Scenario("everything redelivered #" + run, () -> FaultMatrix.redelivery(run), FaultMatrixIT::check));
            });
        }
        // -Dmatrix.only=a,b keeps the scenarios whose name contains a or b (to repeat one scenario)
        List<String> only = List.of(System.getProperty("matrix.only", "").split(",")).stream()
                .filter(t -> !t.isBlank()).toList();
        List<Scenario> chosen = scenarios.stream()
                .filter(t -> only.isEmpty() || only.stream().anyMatch(o -> t.name().contains(o))).toList();
        // Runs are independent (each its own PostgreSQL, nodes and ports) and mostly wait on leases, back-offs and JVM
        // starts: two at a time use the machine's two cores without starving either (-Dmatrix.parallel=1 runs them
        // one by one). Each test reports its own run's verdict, in order.
        ExecutorService pool = Executors.newFixedThreadPool(Integer.getInteger("matrix.parallel", 2), r -> {
            Thread t = new Thread(r, "matrix-run");
            t.setDaemon(true);
            return t;
        });
        List<Future<FaultMatrix.Result>> results = chosen.stream().map(sc -> pool.submit(sc.run())).toList();
        pool.shutdown();
        return IntStream.range(0, chosen.size()).mapToObj(i -> dynamicTest(chosen.get(i).name(),
                () -> chosen.get(i).verdict().accept(resultOf(results.get(i)))));
    }

    private static FaultMatrix.Result resultOf(Future<FaultMatrix.Result> result) throws Throwable {
        try {
            return result.get();
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    /** Everything redelivered, with a mutant switched on in both nodes: a redelivered intent repeats its effect. */
    private static FaultMatrix.Result mutant(String mutant) throws Exception {
        return FaultMatrix.redelivery(1, mutant, List.of("--checkout.fault-injection.mutant=" + mutant));
    }

    private static void caught(FaultMatrix.Result result, String... expectedViolations) {
        for (String expected : expectedViolations) {
            assertThat(result.violations()).as("the matrix must refuse this mutant: " + result.row())
                    .anyMatch(v -> v.startsWith(expected));
        }
        assertThat(result.duplicated()).as("counted as duplicated side effects").isPositive();
    }

    private static void check(FaultMatrix.Result result) {
        assertThat(result.violations()).as(result.row()).isEmpty();
        assertThat(result.lost()).as("lost").isZero();
        assertThat(result.duplicated()).as("duplicated side effects").isZero();
        assertThat(result.invisibleStuck()).as("stuck without saying why").isZero();
    }
}
