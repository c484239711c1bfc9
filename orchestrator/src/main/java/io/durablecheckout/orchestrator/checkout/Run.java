package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;

import java.time.Instant;
import java.util.Objects;

/** The latest lease of one step of a checkout and what became of it. */
final class Run {

    enum Status { IN_FLIGHT, WAITING_RETRY, EXPIRED, BLOCKED, DONE }

    Lease lease;
    Status status;
    String leaseDeadlineId;
    int failures;
    /** An owner said it holds the current lease (a heartbeat): from then on the lease runs and can expire. */
    boolean claimed;
    /** Deadlines of the current lease that found no owner yet. */
    int deferrals;

    /** A new lease for the step: in flight, not yet claimed by an owner. */
    void granted(Lease lease, String deadlineId) {
        this.lease = lease;
        this.status = Status.IN_FLIGHT;
        this.leaseDeadlineId = deadlineId;
        this.claimed = false;
        this.deferrals = 0;
    }

    boolean inFlight() {
        return status == Status.IN_FLIGHT;
    }

    /** The lease in force carries this token. */
    boolean holds(FencingToken token) {
        return lease.fencingToken().equals(token);
    }

    /** The lease in force, with another expiry (renewed, or deferred while nobody has claimed it). */
    Lease leaseUntil(Instant expiresAt) {
        return new Lease(lease.operationId(), lease.attempt(), lease.fencingToken(), expiresAt);
    }

    @Override
    public boolean equals(Object o) {
        // the aggregate fixture compares the state built by commands with the state rebuilt from events
        return o instanceof Run r && Objects.equals(lease, r.lease) && status == r.status
                && Objects.equals(leaseDeadlineId, r.leaseDeadlineId) && failures == r.failures
                && claimed == r.claimed && deferrals == r.deferrals;
    }

    @Override
    public int hashCode() {
        return Objects.hash(lease, status, leaseDeadlineId, failures, claimed, deferrals);
    }
}
