package io.durablecheckout.orchestrator.tenancy;

import io.durablecheckout.orchestrator.http.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.Optional;

/**
 * Bearer API-key authentication inside the API's security filter chain (not a servlet filter of its own: it is
 * created by {@link SecurityConfiguration}). No header: the request stays anonymous and the chain's rules answer
 * 401 where a key is needed. A header that is malformed, unknown, revoked or expired: 401 at once, counted against
 * the request's source ({@link FailedAuthenticationThrottle}); a source with too many such failures gets 429 for any
 * key until its window ends. A valid key: the {@link Caller} becomes the principal (authorities {@code ROLE_*}) and a
 * request attribute for the controllers.
 */
class ApiKeyAuthenticationFilter extends OncePerRequestFilter {

    private final ApiKeys apiKeys;
    private final FailedAuthenticationThrottle throttle;

    public ApiKeyAuthenticationFilter(ApiKeys apiKeys, FailedAuthenticationThrottle throttle) {
        this.apiKeys = apiKeys;
        this.throttle = throttle;
    }

    /** The authenticated caller, as Spring Security holds it. */
    public static final class ApiKeyAuthentication extends AbstractAuthenticationToken {
        private final Caller caller;

        ApiKeyAuthentication(Caller caller) {
            super(caller.roles().stream().map(r -> new SimpleGrantedAuthority(r.authority())).toList());
            this.caller = caller;
            setAuthenticated(true);
        }

        @Override
        public Object getCredentials() {
            return null; // the key is never kept
        }

        @Override
        public Caller getPrincipal() {
            return caller;
        }

        @Override
        public String getName() {
            return caller.actor();
        }
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        if (header == null || header.isBlank()) {
            chain.doFilter(request, response);
            return;
        }
        // Before the key is looked at: a locked source learns nothing, not even from the right key.
        if (throttle.refuseIfLocked(request, response)) {
            return;
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.substring(7).isBlank()) {
            throttle.failed(request.getRemoteAddr(), "malformed Authorization header");
            unauthorized(response, request, "Malformed Authorization header: expected 'Bearer <API key>'");
            return;
        }
        Optional<Caller> caller = apiKeys.resolve(header.substring(7).trim());
        if (caller.isEmpty()) {
            throttle.failed(request.getRemoteAddr(), "unknown, revoked or expired API key");
            unauthorized(response, request, "Unknown, revoked or expired API key");
            return;
        }
        SecurityContext context = SecurityContextHolder.createEmptyContext();
        context.setAuthentication(new ApiKeyAuthentication(caller.get()));
        SecurityContextHolder.setContext(context);
        request.setAttribute(Caller.REQUEST_ATTRIBUTE, caller.get());
        try {
            chain.doFilter(request, response);
        } finally {
            SecurityContextHolder.clearContext();
        }
    }

    static void unauthorized(HttpServletResponse response, HttpServletRequest request, String detail)
            throws IOException {
        response.setHeader("WWW-Authenticate", "Bearer");
        Problems.write(response, HttpStatus.UNAUTHORIZED, "unauthorized", "Unauthorized", detail, request.getRequestURI());
    }
}
