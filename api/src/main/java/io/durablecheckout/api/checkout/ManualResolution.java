package io.durablecheckout.api.checkout;

/** The operator's finding when resolving a manual review. */
public enum ManualResolution {
    AUTHORIZED,
    DECLINED
}
