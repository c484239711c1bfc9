/**
 * The application service behind the checkout endpoints (and the benchmark harness): submitting a checkout once
 * per Idempotency-Key (validation, admission, the catalogue check, sealing personal data) and reading checkouts (the
 * read model, or the checkout's own events while it catches up). Depends on {@code readmodel}, {@code admission},
 * {@code deadletter}, {@code tenancy} and {@code http}; never on {@code web}.
 */
package io.durablecheckout.orchestrator.service;
