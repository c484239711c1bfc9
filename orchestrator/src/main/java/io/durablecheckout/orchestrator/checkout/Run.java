package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;

import java.time.Instant;

/**
 * The latest lease of one step of a checkout and what became of it. Immutable: each change is a new value.
 *
 * @param failures  failed attempts and expired leases of the current operation (reset when an operator retries)
 * @param claimed   an owner said it holds the current lease (a heartbeat): from then on the lease runs and can expire
 * @param deferrals deadlines of the current lease that found no owner yet
 */
public record Run(Lease lease, Status status, int failures, boolean claimed, int deferrals) {

    public enum Status { IN_FLIGHT, WAITING_RETRY, EXPIRED, BLOCKED, DONE }

    /** A new lease for the step: in flight, not yet claimed by an owner. */
    static Run granted(Run previous, Lease lease) {
        return new Run(lease, Status.IN_FLIGHT, previous == null ? 0 : previous.failures, false, 0);
    }

    public boolean inFlight() {
        return status == Status.IN_FLIGHT;
    }

    /** The lease in force carries this token. */
    public boolean holds(FencingToken token) {
        return lease.fencingToken().equals(token);
    }

    /** The lease in force, with another expiry (renewed, or deferred while nobody has claimed it). */
    Lease leaseUntil(Instant expiresAt) {
        return new Lease(lease.operationId(), lease.attempt(), lease.fencingToken(), expiresAt);
    }

    Run with(Status next) {
        return new Run(lease, next, failures, claimed, deferrals);
    }

    Run failed(Status next) {
        return new Run(lease, next, failures + 1, claimed, deferrals);
    }

    /** Blocked in manual review: an operator's retry starts a fresh budget. */
    Run blocked() {
        return new Run(lease, Status.BLOCKED, 0, claimed, deferrals);
    }

    Run renewed(Lease renewed) {
        return new Run(renewed, status, failures, true, deferrals);
    }

    Run deferred(Lease waiting) {
        return new Run(waiting, status, failures, claimed, deferrals + 1);
    }
}
