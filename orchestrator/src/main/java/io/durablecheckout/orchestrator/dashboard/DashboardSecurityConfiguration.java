package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import io.durablecheckout.orchestrator.tenancy.FailedAuthenticationThrottle;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.durablecheckout.orchestrator.http.Problems;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.access.intercept.AuthorizationFilter;
import jakarta.servlet.http.HttpSession;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.SimpleUrlAuthenticationFailureHandler;
import org.springframework.security.web.authentication.UsernamePasswordAuthenticationFilter;
import org.springframework.security.web.header.writers.ContentSecurityPolicyHeaderWriter;
import org.springframework.security.web.header.writers.DelegatingRequestMatcherHeaderWriter;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.AndRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

import java.io.Serializable;
import java.security.Principal;

import static io.durablecheckout.orchestrator.tenancy.Caller.Role.OPERATOR_READ;
import static io.durablecheckout.orchestrator.tenancy.Caller.Role.OPERATOR_REPAIR;

/**
 * The operators' dashboard: form login with an operator API key (and, optionally, the key's account name), failed
 * sign-ins throttled per source (FailedAuthenticationThrottle), a session cookie (SameSite=Strict, application.yml),
 * CSRF tokens on every POST (the page reads its token from /dashboard/api/me), logout. Ordered before the
 * API's bearer chain (SecurityConfiguration), and only for /dashboard/**, /login, /logout, and Swagger UI with its
 * OpenAPI document when a browser asks without a bearer key. A tenant key signs in
 * to nothing; a key with operator-read sees everything and repairs nothing; operator-repair may act. The key is
 * checked again on every dashboard request (DashboardAccess), so a revoked key ends its sessions at once.
 */
@Configuration(proxyBeanMethods = false)
public class DashboardSecurityConfiguration {

    public static final int DASHBOARD_CHAIN_ORDER = 1;

    /** Who signed in: the key's account and id (never the key), and the roles it had then. */
    public record OperatorPrincipal(Caller caller) implements Principal, Serializable {
        @Override
        public String getName() {
            return caller.tenantId();
        }
    }

    @Bean
    @Order(DASHBOARD_CHAIN_ORDER)
    public SecurityFilterChain dashboardChain(HttpSecurity http, ApiKeys apiKeys, FailedAuthenticationThrottle throttle,
                                              DashboardAccess access) throws Exception {
        PathPatternRequestMatcher.Builder path = PathPatternRequestMatcher.withDefaults();
        RequestMatcher signIn = path.matcher(HttpMethod.POST, "/login");
        SimpleUrlAuthenticationFailureHandler backToForm = new SimpleUrlAuthenticationFailureHandler("/login?error");
        // Swagger UI and the OpenAPI document, opened from the dashboard in a browser signed in here (a session, no
        // bearer key); any other request for them stays with the bearer chain (SecurityConfiguration.surfaceChain).
        RequestMatcher apiDocsInBrowser = new AndRequestMatcher(new OrRequestMatcher(path.matcher("/swagger-ui.html"),
                path.matcher("/swagger-ui/**"), path.matcher("/v3/api-docs"), path.matcher("/v3/api-docs/**")),
                request -> request.getHeader("Authorization") == null && request.getRequestedSessionId() != null);
        http.securityMatcher(new OrRequestMatcher(path.matcher("/dashboard"), path.matcher("/dashboard/**"),
                        path.matcher("/login"), path.matcher("/logout"), apiDocsInBrowser))
                .authenticationManager(new ProviderManager(operatorKeys(apiKeys)))
                // A source with too many failed sign-ins or API keys is refused before its key is looked at, the
                // right one too (FailedAuthenticationThrottle); each failed sign-in counts against it.
                .addFilterBefore((request, response, chain) -> {
                    if (!(signIn.matches((HttpServletRequest) request)
                            && throttle.refuseIfLocked((HttpServletRequest) request, (HttpServletResponse) response))) {
                        chain.doFilter(request, response);
                    }
                }, UsernamePasswordAuthenticationFilter.class)
                // Every request of a session, not only the dashboard's own endpoints (Swagger UI and the OpenAPI
                // document too): the key it was opened with is looked up again; revoked or expired, the session ends
                // and the request goes on unauthenticated (401 for the JSON endpoints, the sign-in page for pages).
                .addFilterBefore((request, response, chain) -> {
                    Authentication auth = SecurityContextHolder.getContext().getAuthentication();
                    if (auth != null && auth.getPrincipal() instanceof OperatorPrincipal principal
                            && !access.keyActive(principal.caller())) {
                        HttpSession session = ((HttpServletRequest) request).getSession(false);
                        if (session != null) session.invalidate();
                        SecurityContextHolder.clearContext();
                    }
                    chain.doFilter(request, response);
                }, AuthorizationFilter.class)
                .formLogin(f -> f.loginPage("/login").loginProcessingUrl("/login")
                        .defaultSuccessUrl("/dashboard", true)
                        .failureHandler((request, response, failure) -> {
                            throttle.failed(request.getRemoteAddr(), "dashboard sign-in");
                            backToForm.onAuthenticationFailure(request, response, failure);
                        })
                        .permitAll())
                .logout(l -> l.logoutUrl("/logout").logoutSuccessUrl("/login?logout"))
                .headers(h -> h.addHeaderWriter(new DelegatingRequestMatcherHeaderWriter( // the dashboard's own pages
                        new OrRequestMatcher(path.matcher("/dashboard/**"), path.matcher("/login")),
                        new ContentSecurityPolicyHeaderWriter("default-src 'self'; img-src 'self' data:; "
                                + "frame-ancestors 'none'; form-action 'self'"))))
                .exceptionHandling(e -> e.defaultAuthenticationEntryPointFor((request, response, ex) ->
                                Problems.write(response, HttpStatus.UNAUTHORIZED, "unauthorized", "Sign in",
                                        "The dashboard needs an operator signed in at /login", request.getRequestURI()),
                        new OrRequestMatcher(path.matcher("/dashboard/api/**"), path.matcher("/v3/api-docs"),
                                path.matcher("/v3/api-docs/**"))))
                .authorizeHttpRequests(a -> a
                        .requestMatchers("/login", "/dashboard/dashboard.css").permitAll()
                        .requestMatchers(path.matcher(HttpMethod.POST, "/dashboard/api/**"))
                        .hasRole(OPERATOR_REPAIR.name())
                        .requestMatchers("/dashboard", "/dashboard/**")
                        .hasAnyRole(OPERATOR_READ.name(), OPERATOR_REPAIR.name())
                        .requestMatchers(apiDocsInBrowser).hasAnyRole(OPERATOR_READ.name(), OPERATOR_REPAIR.name())
                        .anyRequest().denyAll());
        return http.build();
    }

    /**
     * The password is the API key; the user name, when given, must be the key's account. Only keys with an operator
     * role may sign in.
     */
    static AuthenticationProvider operatorKeys(ApiKeys apiKeys) {
        return new AuthenticationProvider() {
            @Override
            public Authentication authenticate(Authentication authentication) {
                String account = authentication.getName() == null ? "" : authentication.getName().trim();
                Object key = authentication.getCredentials();
                Caller caller = key == null ? null : apiKeys.resolve(key.toString().trim()).orElse(null);
                if (caller == null || !(caller.has(OPERATOR_READ) || caller.has(OPERATOR_REPAIR))
                        || (!account.isEmpty() && !account.equals(caller.tenantId()))) {
                    throw new BadCredentialsException("not an operator key"); // one answer for every reason
                }
                return UsernamePasswordAuthenticationToken.authenticated(new OperatorPrincipal(caller), null,
                        caller.roles().stream().map(r -> new SimpleGrantedAuthority(r.authority())).toList());
            }

            @Override
            public boolean supports(Class<?> authentication) {
                return UsernamePasswordAuthenticationToken.class.isAssignableFrom(authentication);
            }
        };
    }
}
