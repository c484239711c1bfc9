package io.durablecheckout.orchestrator.tenancy;

import io.durablecheckout.orchestrator.web.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.Optional;

/**
 * Every call under /api/ carries {@code Authorization: Bearer <API key>}. Provider webhooks are the exception: they
 * are authenticated by their signature instead.
 */
@Component
public class ApiKeyAuthenticationFilter extends OncePerRequestFilter {

    private final ApiKeys apiKeys;

    public ApiKeyAuthenticationFilter(ApiKeys apiKeys) {
        this.apiKeys = apiKeys;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getRequestURI();
        return !path.startsWith("/api/") || path.startsWith("/api/v1/payment-callbacks");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader("Authorization");
        if (header == null || header.isBlank()) {
            unauthorized(response, request, "Missing API key: send 'Authorization: Bearer <API key>'");
            return;
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7) || header.substring(7).isBlank()) {
            unauthorized(response, request, "Malformed Authorization header: expected 'Bearer <API key>'");
            return;
        }
        Optional<Caller> caller = apiKeys.resolve(header.substring(7).trim());
        if (caller.isEmpty()) {
            unauthorized(response, request, "Unknown API key");
            return;
        }
        request.setAttribute(Caller.REQUEST_ATTRIBUTE, caller.get());
        chain.doFilter(request, response);
    }

    private static void unauthorized(HttpServletResponse response, HttpServletRequest request, String detail)
            throws IOException {
        response.setHeader("WWW-Authenticate", "Bearer");
        Problems.write(response, HttpStatus.UNAUTHORIZED, "unauthorized", "Unauthorized", detail, request.getRequestURI());
    }
}
