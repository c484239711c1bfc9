package io.durablecheckout.orchestrator.tenancy;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code checkout.security.*}.
 *
 * @param publicOperations actuator (beyond health) and the OpenAPI document without a key: only for a management
 *                         port reachable from a private network (default false)
 */
@ConfigurationProperties("checkout.security")
public record AccessProperties(boolean publicOperations) {

    /**
     * {@code checkout.rate-limit.*}.
     *
     * @param requestsPerSecond per API key, across the nodes (default 1000)
     */
    @ConfigurationProperties("checkout.rate-limit")
    public record RateLimit(Long requestsPerSecond) {
        public RateLimit {
            requestsPerSecond = requestsPerSecond != null ? requestsPerSecond : 1000L;
        }
    }

    /**
     * The demo keys of {@code checkout.demo.*} (revoked with {@code enabled=false}; the admin key only in the
     * embedded demo).
     */
    @ConfigurationProperties("checkout.demo")
    public record Demo(Boolean enabled, String apiKey, String operatorApiKey, String adminApiKey) {
        public Demo {
            enabled = enabled != null ? enabled : true;
            apiKey = apiKey != null ? apiKey : "demo-api-key";
            operatorApiKey = operatorApiKey != null ? operatorApiKey : "demo-operator-key";
            adminApiKey = adminApiKey != null ? adminApiKey : "demo-admin-key";
        }
    }
}
