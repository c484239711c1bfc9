package io.durablecheckout.activities.simulator;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Provider bugs the simulator can have, switched at run time (by tests, in the embedded demo only): the cause of a
 * poison event, and then its fix.
 */
@Component
@ConditionalOnProperty(name = "checkout.simulator.enabled", havingValue = "true", matchIfMissing = true)
public class SimulatorFaults {

    /** Characters added to a {@code tok_long_reference} reference while the bug is on: past every column's bound. */
    public static final int OVERSIZED_REFERENCE_LENGTH = 300;

    private final AtomicBoolean oversizedReferences = new AtomicBoolean(true);

    /** Whether {@code tok_long_reference} answers with an over-long reference (on until someone "fixes" it). */
    public boolean oversizedReferences() {
        return oversizedReferences.get();
    }

    public void oversizedReferences(boolean on) {
        oversizedReferences.set(on);
    }
}
