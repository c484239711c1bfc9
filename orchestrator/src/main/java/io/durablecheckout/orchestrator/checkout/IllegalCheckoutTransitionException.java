package io.durablecheckout.orchestrator.checkout;

/** A command asked for a transition the rules forbid; the message names the rule. Nothing was applied. */
public class IllegalCheckoutTransitionException extends RuntimeException {
    private final String rule;
    private final CheckoutState state;

    public IllegalCheckoutTransitionException(String rule, CheckoutState state, String message) {
        super(message);
        this.rule = rule;
        this.state = state;
    }

    public String rule() {
        return rule;
    }

    public CheckoutState state() {
        return state;
    }
}
