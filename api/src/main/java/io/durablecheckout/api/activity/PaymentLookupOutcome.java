package io.durablecheckout.api.activity;

/** What the provider said about an operation id when asked. */
public enum PaymentLookupOutcome {
    AUTHORIZED,
    DECLINED,
    /** The provider knows the operation but has not decided yet. */
    PENDING,
    /** The provider never received the operation: safe to treat as not authorized. */
    NOT_FOUND,
    /** The lookup itself failed (timeout, provider down): nothing learned. */
    LOOKUP_FAILED
}
