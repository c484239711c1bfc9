package io.durablecheckout.orchestrator.http;

import org.springframework.http.HttpStatus;

import java.util.List;

/** A client mistake, reported as problem+json with the given status; nothing was written. */
public class ApiProblemException extends RuntimeException {
    private final HttpStatus status;
    private final String type;
    private final String title;
    private final List<String> errors;

    public ApiProblemException(HttpStatus status, String type, String title, String detail) {
        this(status, type, title, detail, List.of());
    }

    public ApiProblemException(HttpStatus status, String type, String title, String detail, List<String> errors) {
        super(detail);
        this.status = status;
        this.type = type;
        this.title = title;
        this.errors = List.copyOf(errors);
    }

    public HttpStatus status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String title() {
        return title;
    }

    public List<String> errors() {
        return errors;
    }
}
