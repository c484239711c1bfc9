package io.durablecheckout.orchestrator.tenancy;

/** Who is calling: resolved from the API key. Operators act across tenants. */
public record Caller(String tenantId, Role role) {
    public static final String REQUEST_ATTRIBUTE = "io.durablecheckout.caller";

    public enum Role { TENANT, OPERATOR }

    public boolean isOperator() {
        return role == Role.OPERATOR;
    }
}
