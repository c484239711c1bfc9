package io.durablecheckout.orchestrator.admission;

import io.durablecheckout.orchestrator.http.Problems;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/** 429 Too Many Requests with {@code Retry-After}, as problem+json; nothing was written. */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class AdmissionExceptionHandler {

    @ExceptionHandler(Admission.BacklogFullException.class)
    ResponseEntity<ProblemDetail> backlogFull(Admission.BacklogFullException e) {
        ProblemDetail problem = Problems.of(HttpStatus.TOO_MANY_REQUESTS, "backlog-full", "Too many checkouts in flight for this tenant",
                e.getMessage());
        problem.setProperty("backlog", e.backlog());
        problem.setProperty("share", e.share());
        problem.setProperty("limit", e.limit());
        problem.setProperty("tenantsActive", e.tenantsActive());
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(e.retryAfterSeconds()))
                .body(problem);
    }
}
