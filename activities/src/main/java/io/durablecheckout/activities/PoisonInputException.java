package io.durablecheckout.activities;

/**
 * A value a resource will not write, because it breaks the resource's contract (today: longer than its column).
 * Deterministic: the same intent fails the same way every time, so it is not retried with the batch but parked in the
 * processor's dead-letter queue for its checkout (docs/reliability.md, "Poison events"), with this message as the
 * cause an operator reads.
 */
public class PoisonInputException extends RuntimeException {

    public PoisonInputException(String message) {
        super(message);
    }
}
