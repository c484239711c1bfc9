package io.durablecheckout.orchestrator.checkout;

/**
 * The metadata keys of an operator's action on a checkout: who acted, why and when. They travel on the command and,
 * through the correlation data providers, into every event it causes (so the history and replay show them).
 */
public final class OperatorMetadata {

    public static final String ACTOR = "actor";
    public static final String REASON = "reason";
    public static final String ACTED_AT = "actedAt";

    private OperatorMetadata() {
    }
}
