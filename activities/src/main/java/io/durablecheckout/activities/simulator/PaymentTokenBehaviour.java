package io.durablecheckout.activities.simulator;

/** What the simulator does for each magic payment token; anything else is declined. */
enum PaymentTokenBehaviour {
    APPROVE("tok_approve", "AUTHORIZED", null, Hold.NONE),
    DECLINE("tok_decline", "DECLINED", "insufficient funds", Hold.NONE),
    /** Decides, records, then holds the response past the client's timeout. */
    TIMEOUT_THEN_APPROVE("tok_timeout_then_approve", "AUTHORIZED", null, Hold.TIMEOUT),
    TIMEOUT_THEN_DECLINE("tok_timeout_then_decline", "DECLINED", "insufficient funds", Hold.TIMEOUT),
    /** Never decides: PENDING forever, and the first answer is held past the client's timeout. */
    UNKNOWN("tok_unknown", "PENDING", null, Hold.TIMEOUT),
    SLOW("tok_slow", "AUTHORIZED", null, Hold.SLOW),
    /** 503 for the first {@code down-for-attempts} requests of an operation, then authorized. */
    PROVIDER_DOWN("tok_provider_down", "AUTHORIZED", null, Hold.NONE),
    /**
     * Authorized, but answered with a provider reference longer than any column holds while
     * {@link SimulatorFaults#oversizedReferences()} is on (a provider bug): the poison event of docs/reliability.md.
     * Sends no notification, so the parked intent is the only way its checkout learns the outcome.
     */
    LONG_REFERENCE("tok_long_reference", "AUTHORIZED", null, Hold.NONE),
    /** Authorized; its capture is declined (200 DECLINED), for good. */
    CAPTURE_DECLINED("tok_capture_declined", "AUTHORIZED", null, Hold.NONE, Capture.DECLINE),
    /** Authorized; the first capture is made and recorded, then its answer held past the client's timeout. */
    CAPTURE_TIMEOUT_DONE("tok_capture_timeout_done", "AUTHORIZED", null, Hold.NONE, Capture.TIMEOUT_DONE),
    /** Authorized; the first capture request is held past the client's timeout and lost (nothing recorded). */
    CAPTURE_TIMEOUT_LOST("tok_capture_timeout_lost", "AUTHORIZED", null, Hold.NONE, Capture.TIMEOUT_LOST),
    /**
     * 3-D Secure: REQUIRES_ACTION (a redirect to the simulator's 3-D Secure page), then authorized after
     * {@code checkout.simulator.three-ds-delay} as if the customer authenticated, and the webhook says so.
     */
    THREE_DS("tok_3ds", "REQUIRES_ACTION", null, Hold.NONE),
    /** 3-D Secure that the customer abandons: REQUIRES_ACTION, and nothing ever follows (a void declines it). */
    THREE_DS_ABANDONED("tok_3ds_abandoned", "REQUIRES_ACTION", null, Hold.NONE),
    OTHER(null, "DECLINED", "unknown payment token", Hold.NONE);

    enum Hold { NONE, SLOW, TIMEOUT }

    /** How the authorization's capture behaves (only its first request for the timeouts; later ones work). */
    enum Capture { NORMAL, DECLINE, TIMEOUT_DONE, TIMEOUT_LOST }

    private final String token;
    final String status;
    final String reason;
    final Hold hold;
    final Capture capture;

    PaymentTokenBehaviour(String token, String status, String reason, Hold hold) {
        this(token, status, reason, hold, Capture.NORMAL);
    }

    PaymentTokenBehaviour(String token, String status, String reason, Hold hold, Capture capture) {
        this.token = token;
        this.status = status;
        this.reason = reason;
        this.hold = hold;
        this.capture = capture;
    }

    static PaymentTokenBehaviour of(String paymentToken) {
        for (PaymentTokenBehaviour behaviour : values()) {
            if (behaviour.token != null && behaviour.token.equals(paymentToken)) return behaviour;
        }
        return OTHER;
    }
}
