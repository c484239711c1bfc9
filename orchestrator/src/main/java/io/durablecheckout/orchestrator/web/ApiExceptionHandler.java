package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.checkout.IllegalCheckoutTransitionException;
import io.durablecheckout.orchestrator.http.Problems;
import io.durablecheckout.orchestrator.http.RequestLimitsFilter;
import org.axonframework.commandhandling.CommandExecutionException;
import org.axonframework.modelling.command.AggregateNotFoundException;
import org.axonframework.modelling.command.ConflictingAggregateVersionException;
import org.axonframework.queryhandling.NoHandlerForQueryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error leaves as problem+json (RFC 9457). Client mistakes are 4xx with a detail that says what to fix;
 * only our own failures are 5xx.
 */
@RestControllerAdvice
public class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    @ExceptionHandler(ApiProblemException.class)
    ProblemDetail apiProblem(ApiProblemException e) {
        ProblemDetail problem = Problems.of(e.status(), e.type(), e.title(), e.getMessage());
        if (!e.errors().isEmpty()) {
            problem.setProperty("errors", e.errors());
        }
        return problem;
    }

    @ExceptionHandler(IllegalCheckoutTransitionException.class)
    ProblemDetail illegalTransition(IllegalCheckoutTransitionException e) {
        ProblemDetail problem = Problems.of(HttpStatus.CONFLICT, "illegal-transition", "Not allowed in this state",
                e.getMessage());
        problem.setProperty("rule", e.rule());
        if (e.state() != null) {
            problem.setProperty("state", e.state().wireName());
        }
        return problem;
    }

    @ExceptionHandler(ConflictingAggregateVersionException.class)
    ProblemDetail staleVersion(ConflictingAggregateVersionException e) {
        ProblemDetail problem = Problems.of(HttpStatus.PRECONDITION_FAILED, "stale-version", "Version has changed",
                "The checkout changed since the version in If-Match: read it again and decide on the current state");
        problem.setProperty("expectedVersion", e.getExpectedVersion());
        problem.setProperty("currentVersion", e.getActualVersion());
        return problem;
    }

    @ExceptionHandler(AggregateNotFoundException.class)
    ProblemDetail notFound(AggregateNotFoundException e) {
        return Problems.of(HttpStatus.NOT_FOUND, "not-found", "No such checkout", "No checkout with this id");
    }

    @ExceptionHandler(NoHandlerForQueryException.class)
    ProblemDetail unavailable(NoHandlerForQueryException e) {
        return Problems.of(HttpStatus.SERVICE_UNAVAILABLE, "service-unavailable", "Service unavailable",
                "The inventory service is not reachable; try again shortly");
    }

    /** Axon wraps handler exceptions when a command crosses a process boundary; unwrap to answer as if local. */
    @ExceptionHandler(CommandExecutionException.class)
    ResponseEntity<Object> commandFailed(CommandExecutionException e, WebRequest request) throws Exception {
        Throwable cause = e.getCause();
        if (cause instanceof IllegalCheckoutTransitionException t) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(illegalTransition(t));
        }
        if (cause instanceof ConflictingAggregateVersionException c) {
            return ResponseEntity.status(HttpStatus.PRECONDITION_FAILED).body(staleVersion(c));
        }
        if (cause instanceof AggregateNotFoundException n) {
            return ResponseEntity.status(HttpStatus.NOT_FOUND).body(notFound(n));
        }
        return ResponseEntity.internalServerError().body(internal(e));
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
                                                                  HttpHeaders headers, HttpStatusCode status,
                                                                  WebRequest request) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof RequestLimitsFilter.BodyTooLargeException) {
                return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(Problems.of(HttpStatus.CONTENT_TOO_LARGE,
                        "payload-too-large", "Request too large", t.getMessage()));
            }
        }
        String detail = "The request body is not valid JSON of the expected shape";
        Throwable cause = ex.getMostSpecificCause();
        if (cause != null && cause.getMessage() != null) {
            String message = cause.getMessage();
            int cut = message.indexOf(" at [Source");
            // Jackson names our internal class; the client only needs the property.
            detail = detail + ": " + (cut > 0 ? message.substring(0, cut) : message).replace('\n', ' ')
                    .replaceAll(" \\(class [^)]*\\)", "");
        }
        return ResponseEntity.badRequest().body(Problems.of(HttpStatus.BAD_REQUEST, "malformed-request",
                "Malformed request", detail));
    }

    @ExceptionHandler(RequestLimitsFilter.BodyTooLargeException.class)
    ResponseEntity<ProblemDetail> tooLarge(RequestLimitsFilter.BodyTooLargeException e) {
        return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(Problems.of(HttpStatus.CONTENT_TOO_LARGE,
                "payload-too-large", "Request too large", e.getMessage()));
    }

    @ExceptionHandler(Exception.class)
    ProblemDetail internal(Exception e) {
        log.error("Unhandled error", e);
        return Problems.of(HttpStatus.INTERNAL_SERVER_ERROR, "internal", "Internal error",
                "Something went wrong on our side; nothing you sent was at fault. Retry with the same Idempotency-Key.");
    }
}
