package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.Authentication;
import org.springframework.stereotype.Component;

import java.time.Instant;

/**
 * Who is signed in to the dashboard, from the session the login established (DashboardSecurityConfiguration):
 * operator-read sees everything, operator-repair may also act. The key the session was opened with is looked up
 * again on every call, so revoking or expiring it ends the session's rights at once.
 */
@Component
public class DashboardAccess {

    private final ApiKeys apiKeys;

    public DashboardAccess(ApiKeys apiKeys) {
        this.apiKeys = apiKeys;
    }

    public record Operator(String name, boolean canRepair, Caller caller) {
    }

    public Operator reader(HttpServletRequest request) {
        if (!(request.getUserPrincipal() instanceof Authentication auth)
                || !(auth.getPrincipal() instanceof DashboardSecurityConfiguration.OperatorPrincipal principal)) {
            throw new ApiProblemException(HttpStatus.UNAUTHORIZED, "unauthorized", "Sign in",
                    "The dashboard needs an operator signed in at /login");
        }
        Caller caller = principal.caller();
        if (!keyActive(caller)) {
            request.getSession().invalidate();
            throw new ApiProblemException(HttpStatus.UNAUTHORIZED, "unauthorized", "Sign in again",
                    "The key this session was opened with has been revoked or has expired");
        }
        boolean repair = caller.has(Caller.Role.OPERATOR_REPAIR);
        if (!repair && !caller.has(Caller.Role.OPERATOR_READ)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Operators only",
                    "The dashboard is for operators");
        }
        return new Operator(caller.tenantId(), repair, caller);
    }

    /** Whether the key a session was opened with is still neither revoked nor expired. */
    public boolean keyActive(Caller caller) {
        return apiKeys.find(caller.keyId()).filter(k -> k.revokedAt() == null)
                .filter(k -> k.expiresAt() == null || Instant.parse(k.expiresAt()).isAfter(Instant.now()))
                .isPresent();
    }

    public Operator repairer(HttpServletRequest request) {
        Operator operator = reader(request);
        if (!operator.canRepair()) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Repair role required",
                    "Signed in read-only: repairs need the operator-repair role");
        }
        return operator;
    }
}
