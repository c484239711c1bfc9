package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.orchestrator.tenancy.Caller;
import io.durablecheckout.orchestrator.web.ApiProblemException;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import java.security.Principal;

/**
 * Who is signed in to the dashboard, from the session the login established: read-only operators see everything,
 * repair operators (and admins) may also act. Actions are recorded as the operator's own.
 */
@Component
public class DashboardAccess {

    public static final String READ_ROLE = "OPERATOR_READ";
    public static final String REPAIR_ROLE = "OPERATOR_REPAIR";
    public static final String ADMIN_ROLE = "ADMIN";

    public record Operator(String name, boolean canRepair) {
        /** The identity the operator API records as the actor ({@code operator:<name>}). */
        public Caller caller() {
            return new Caller(name, Caller.Role.OPERATOR);
        }
    }

    public Operator reader(HttpServletRequest request) {
        Principal principal = request.getUserPrincipal();
        if (principal == null) {
            throw new ApiProblemException(HttpStatus.UNAUTHORIZED, "unauthorized", "Sign in",
                    "The dashboard needs an operator signed in at /login");
        }
        boolean repair = request.isUserInRole(REPAIR_ROLE) || request.isUserInRole(ADMIN_ROLE);
        if (!repair && !request.isUserInRole(READ_ROLE)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Operators only",
                    "The dashboard is for operators");
        }
        return new Operator(principal.getName(), repair);
    }

    public Operator repairer(HttpServletRequest request) {
        Operator operator = reader(request);
        if (!operator.canRepair()) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Repair role required",
                    "Signed in read-only: repairs need the operator repair role");
        }
        return operator;
    }
}
