package io.durablecheckout.orchestrator.http;

import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** RFC 9457 problem details: one place that names the problem types. */
public final class Problems {

    public static final String TYPE_PREFIX = "urn:durable-checkout:problem:";

    private Problems() {
    }

    public static ProblemDetail of(HttpStatus status, String type, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(TYPE_PREFIX + type));
        problem.setTitle(title);
        return problem;
    }

    /** For filters, which run outside Spring MVC's exception handling. */
    public static void write(HttpServletResponse response, HttpStatus status, String type, String title, String detail,
                             String instance) throws IOException {
        response.setStatus(status.value());
        response.setContentType("application/problem+json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write("{\"type\":\"" + TYPE_PREFIX + type + "\",\"title\":\"" + escape(title)
                + "\",\"status\":" + status.value() + ",\"detail\":\"" + escape(detail) + "\",\"instance\":\""
                + escape(instance) + "\"}");
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
