package io.durablecheckout.orchestrator.faults;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

import java.io.IOException;

/**
 * {@link CrashPoint#HTTP_ACCEPTED}: a new checkout was created and committed (the controller answered {@code 202}
 * with {@code Idempotent-Replayed: false}), and the answer has not left the process. The response is held in a buffer
 * until this filter has counted the point, so the client never sees the answer of the request the process dies in.
 * Registered only when that point is armed.
 */
final class HttpAcceptedCrashFilter extends OncePerRequestFilter {

    static final String PATH = "/api/v1/checkouts";

    private final Runnable reached;

    /** @param reached counts the point (the {@code crash-after}-th time, the process dies in it) */
    HttpAcceptedCrashFilter(Runnable reached) {
        this.reached = reached;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !"POST".equals(request.getMethod()) || !PATH.equals(request.getRequestURI());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        ContentCachingResponseWrapper held = new ContentCachingResponseWrapper(response);
        chain.doFilter(request, held);
        if (held.getStatus() == HttpStatus.ACCEPTED.value() && "false".equals(held.getHeader("Idempotent-Replayed"))) {
            reached.run();
        }
        held.copyBodyToResponse();
    }
}
