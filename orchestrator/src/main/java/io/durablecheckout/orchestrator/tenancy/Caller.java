package io.durablecheckout.orchestrator.tenancy;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Who is calling: resolved from the API key on every request. {@code tenantId} is the account the key belongs to
 * (a merchant, or the operators' or administrators' account); {@code keyId} names the key (never the key itself).
 */
public record Caller(String tenantId, Set<Role> roles, String keyId) {
    public static final String REQUEST_ATTRIBUTE = "io.durablecheckout.caller";

    /** Spring authorities are {@code ROLE_} + the enum name; the database and the admin API use {@link #code()}. */
    public enum Role {
        /** Its own checkouts: start, read, list, cancel. */
        TENANT,
        /** Every tenant's checkouts, read only. */
        OPERATOR_READ,
        /** Manual repair: resolve, retry, cancel any checkout; rebuild read models; erase personal data. */
        OPERATOR_REPAIR,
        /** Tenants and keys. Reads no checkout. */
        ADMIN;

        public String authority() {
            return "ROLE_" + name();
        }

        public String code() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        public static Role ofCode(String code) {
            return valueOf(code.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        }

        public static Set<Role> parse(String codes) {
            Set<Role> roles = EnumSet.noneOf(Role.class);
            for (String code : codes.split(",")) {
                if (!code.isBlank()) roles.add(ofCode(code));
            }
            return roles;
        }

        public static String format(Set<Role> roles) {
            return roles.stream().sorted().map(Role::code).collect(Collectors.joining(","));
        }
    }

    public Caller {
        roles = roles.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(roles));
    }

    public boolean has(Role role) {
        return roles.contains(role);
    }

    /** May read across tenants. */
    public boolean isOperator() {
        return has(Role.OPERATOR_READ);
    }

    /** For audit rows and event metadata: the account and the key, never the key material. */
    public String actor() {
        return tenantId + "/" + keyId;
    }
}
