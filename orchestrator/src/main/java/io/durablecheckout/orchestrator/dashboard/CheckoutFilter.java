package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.orchestrator.checkout.CheckoutState;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import org.springframework.http.HttpStatus;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;

/**
 * The dashboard list's filter, as the query string carries it. Everything optional; {@code q} is an exact checkout
 * id, Idempotency-Key or provider reference.
 */
record CheckoutFilter(String state, String tenant, boolean stuck, boolean retrying, boolean paymentUnknown,
                             boolean waiting, Instant from, Instant to, String q) {

    public static CheckoutFilter of(String state, String tenant, Boolean stuck, Boolean retrying,
                                    Boolean paymentUnknown, Boolean waiting, String from, String to, String q) {
        if (state != null && !state.isBlank()
                && Arrays.stream(CheckoutState.values()).noneMatch(s -> s.wireName().equals(state))) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Unknown state",
                    "state must be one of " + Arrays.stream(CheckoutState.values()).map(CheckoutState::wireName).toList());
        }
        return new CheckoutFilter(blankToNull(state), blankToNull(tenant), Boolean.TRUE.equals(stuck),
                Boolean.TRUE.equals(retrying), Boolean.TRUE.equals(paymentUnknown), Boolean.TRUE.equals(waiting),
                instant("from", from), instant("to", to), blankToNull(q == null ? null : q.trim()));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static Instant instant(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid time",
                    name + " must be an ISO-8601 instant such as 2026-01-31T12:00:00Z, was '" + value + "'");
        }
    }
}
