package io.durablecheckout.api.values;

import java.time.Instant;
import java.util.Objects;

/**
 * What an intent grants its worker: the operation to perform, which attempt this is, the fencing token the worker
 * must present at the resource, and when the grant expires.
 */
public record Lease(OperationId operationId, int attempt, FencingToken fencingToken, Instant expiresAt) {
    public Lease {
        Objects.requireNonNull(operationId, "operationId");
        Objects.requireNonNull(fencingToken, "fencingToken");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (attempt < 1) throw new IllegalArgumentException("attempt must be >= 1");
    }
}
