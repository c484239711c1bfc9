package io.durablecheckout.orchestrator.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * One place for every endpoint (API, operator, dashboard, actuator), before security and before any controller: a
 * query parameter whose name or value holds a control character (NUL, line breaks, escapes; C0, DEL and C1) is
 * refused with 400 problem+json naming the parameter. No query parameter of this service takes one, and a NUL
 * reached PostgreSQL, which refuses it in text (a 500). Only the query string is read, never a body.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 20)
public class QueryParameterFilter extends OncePerRequestFilter {

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String refused = refusedParameter(request.getQueryString());
        if (refused != null) {
            Problems.write(response, HttpStatus.BAD_REQUEST, "invalid-parameter", "Invalid query parameter",
                    refused + ": control characters are not allowed in query parameters", request.getRequestURI());
            return;
        }
        chain.doFilter(request, response);
    }

    /** What to call the first parameter with a control character ({@code "checkoutId"}), or null if there is none. */
    static String refusedParameter(String query) {
        if (query == null || query.isEmpty()) return null;
        for (String pair : query.split("&", -1)) {
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            if (hasControl(name)) return "a query parameter name ('" + TextLimits.excerpt(name) + "')";
            if (hasControl(value)) return "'" + TextLimits.excerpt(name) + "'";
        }
        return null;
    }

    /** As the container decodes it; a malformed escape is left as it is (the container answers for it). */
    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    private static boolean hasControl(String s) {
        return s.chars().anyMatch(Character::isISOControl);
    }
}
