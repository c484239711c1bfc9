package io.durablecheckout.orchestrator.faults;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fault injection for the crash matrix, off unless {@code checkout.fault-injection.crash-at} names a
 * {@link CrashPoint}: the {@code crash-after}-th time the process reaches that boundary it kills itself with
 * SIGKILL (no shutdown hooks, no flush, uncommitted transactions lost), exactly as {@code kill -9} would.
 */
@Component
class CrashPoints {

    private static final Logger log = LoggerFactory.getLogger(CrashPoints.class);

    private final CrashPoint armed;
    private final int after;
    private final AtomicInteger reached = new AtomicInteger();

    CrashPoints(FaultInjectionProperties properties) {
        this.armed = properties.crashAt() == null ? null : CrashPoint.parse(properties.crashAt());
        this.after = properties.crashAfter();
        if (armed != null) {
            log.warn("FAULT INJECTION: this process kills itself the {}th time it reaches {}", after, armed.slug());
        }
    }

    public boolean isArmed() {
        return armed != null;
    }

    public boolean isArmed(CrashPoint point) {
        return armed == point;
    }

    public void reached(CrashPoint point) {
        if (point != armed || reached.incrementAndGet() != after) {
            return;
        }
        log.error("FAULT INJECTION: kill -9 at {}", point.slug());
        System.out.flush();
        System.err.flush();
        long pid = ProcessHandle.current().pid();
        try {
            new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            // no kill(1): stop as abruptly as the JVM allows
        }
        Runtime.getRuntime().halt(137);
    }
}
