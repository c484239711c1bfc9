package io.durablecheckout.orchestrator.tenancy;

import io.durablecheckout.orchestrator.http.Problems;
import io.durablecheckout.orchestrator.http.HttpProperties;
import io.durablecheckout.orchestrator.http.RequestLimitsFilter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.intercept.AuthorizationFilter;

import static io.durablecheckout.orchestrator.tenancy.Caller.Role.ADMIN;
import static io.durablecheckout.orchestrator.tenancy.Caller.Role.OPERATOR_READ;
import static io.durablecheckout.orchestrator.tenancy.Caller.Role.OPERATOR_REPAIR;
import static io.durablecheckout.orchestrator.tenancy.Caller.Role.TENANT;

/**
 * Who may call what. Spring Security picks the first {@link SecurityFilterChain} whose matcher fits the request, in
 * {@code @Order}:
 * <ol>
 *   <li>{@code @Order(1)}: reserved for the operators' dashboard (form login, session, CSRF) on
 *       {@code /dashboard/**}, {@code /login}, {@code /logout}; it is defined next to the dashboard, not here.</li>
 *   <li>{@code @Order(10)} {@link #apiChain}: {@code /api/**}, stateless, bearer API keys
 *       ({@link ApiKeyAuthenticationFilter}, failures throttled per source by {@link FailedAuthenticationThrottle}),
 *       problem+json 401/403, no session, no CSRF (no cookies). Its
 *       filters, in order: {@link RequestLimitsFilter} (413/415 before anything is read), the key, then
 *       {@link RateLimitFilter} (429 per tenant), then the role rules below.
 *       Provider webhooks are let through: their signature is their authentication.</li>
 *   <li>{@code @Order(100)} {@link #surfaceChain}: everything else: actuator and OpenAPI (operator-read key, or
 *       public with {@code checkout.security.public-operations=true}), health (public), simulator (demo only).</li>
 * </ol>
 * The controllers check the same rules again on the {@link Caller} (defence in depth) and scope every read to the
 * caller's tenant unless it may read across tenants.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSecurity
public class SecurityConfiguration {

    public static final int API_CHAIN_ORDER = 10;
    public static final int SURFACE_CHAIN_ORDER = 100;
    /** Actuator (beyond health) and the OpenAPI document (the Swagger UI page itself holds no data). */
    static final String[] OPERATIONS = {"/actuator/**", "/v3/api-docs", "/v3/api-docs/**", "/v3/api-docs.yaml"};

    /**
     * No observations of the filter chain, authentication or authorization: nothing reads them (no tracing backend, no
     * dashboard or alert on {@code spring_security_*}), and with them every request ran each filter through an
     * observation wrapper (13 % of the request threads' CPU samples in the load profile, docs/decisions.md 55).
     * Rules and filters are unchanged.
     */
    @Bean
    static SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.noObservations();
    }

    @Bean
    @Order(API_CHAIN_ORDER)
    public SecurityFilterChain apiChain(HttpSecurity http, ApiKeys apiKeys, JdbcTemplate jdbc, HttpProperties limits,
                                        AccessProperties.RateLimit rateLimit,
                                        FailedAuthenticationThrottle throttle) throws Exception {
        RequestLimitsFilter bodyLimits = new RequestLimitsFilter(limits.maxBodySize().toBytes());
        RateLimitFilter rates = new RateLimitFilter(jdbc, rateLimit.requestsPerSecond());
        http.securityMatcher("/api/**")
                .csrf(AbstractHttpConfigurer::disable)
                .formLogin(AbstractHttpConfigurer::disable)
                .httpBasic(AbstractHttpConfigurer::disable)
                .logout(AbstractHttpConfigurer::disable)
                .requestCache(AbstractHttpConfigurer::disable)
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .addFilterBefore(bodyLimits, AuthorizationFilter.class)
                .addFilterAfter(new ApiKeyAuthenticationFilter(apiKeys, throttle), RequestLimitsFilter.class)
                .addFilterAfter(rates, ApiKeyAuthenticationFilter.class)
                .exceptionHandling(e -> e
                        .authenticationEntryPoint((request, response, ex) -> ApiKeyAuthenticationFilter.unauthorized(
                                response, request, "Missing API key: send 'Authorization: Bearer <API key>'"))
                        .accessDeniedHandler((request, response, ex) -> Problems.write(response, HttpStatus.FORBIDDEN,
                                "forbidden", "Forbidden", "This API key's roles do not allow this call",
                                request.getRequestURI())))
                .authorizeHttpRequests(a -> a
                        .requestMatchers(HttpMethod.POST, "/api/v1/payment-callbacks",
                                "/api/v1/payment-callbacks/stripe").permitAll()
                        .requestMatchers("/api/v1/admin/**").hasRole(ADMIN.name())
                        .requestMatchers(HttpMethod.GET, "/api/v1/operator/**").hasRole(OPERATOR_READ.name())
                        .requestMatchers("/api/v1/operator/**").hasRole(OPERATOR_REPAIR.name())
                        .requestMatchers(HttpMethod.GET, "/api/v1/checkouts", "/api/v1/checkouts/**")
                        .hasAnyRole(TENANT.name(), OPERATOR_READ.name())
                        .requestMatchers(HttpMethod.POST, "/api/v1/checkouts", "/api/v1/checkouts/*/cancel",
                                "/api/v1/checkouts/*/capture")
                        .hasRole(TENANT.name())
                        .anyRequest().denyAll());
        return http.build();
    }

    /**
     * Everything outside /api (and outside the dashboard's chain): stateless, bearer keys as in the API. Health is
     * public (load balancers; it shows only UP/DOWN). The rest of actuator and the OpenAPI document need an
     * operator-read key, unless {@code checkout.security.public-operations=true}, meant for a management port
     * ({@code management.server.port}) reachable only from a private network. The simulator's endpoints exist only
     * when the simulator is on, which on a configured database takes an explicit opt-in.
     */
    @Bean
    @Order(SURFACE_CHAIN_ORDER)
    public SecurityFilterChain surfaceChain(HttpSecurity http, ApiKeys apiKeys, AccessProperties access,
                                            FailedAuthenticationThrottle throttle) throws Exception {
        boolean publicOperations = access.publicOperations();
        http.csrf(AbstractHttpConfigurer::disable)
                .formLogin(AbstractHttpConfigurer::disable)
                .httpBasic(AbstractHttpConfigurer::disable)
                .logout(AbstractHttpConfigurer::disable)
                .requestCache(AbstractHttpConfigurer::disable)
                .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .addFilterBefore(new ApiKeyAuthenticationFilter(apiKeys, throttle), AuthorizationFilter.class)
                .exceptionHandling(e -> e
                        .authenticationEntryPoint((request, response, ex) -> ApiKeyAuthenticationFilter.unauthorized(
                                response, request, "Missing API key: send 'Authorization: Bearer <operator key>'"))
                        .accessDeniedHandler((request, response, ex) -> Problems.write(response, HttpStatus.FORBIDDEN,
                                "forbidden", "Forbidden", "Operations endpoints need an operator-read key",
                                request.getRequestURI())))
                .authorizeHttpRequests(a -> {
                    a.requestMatchers("/actuator/health", "/actuator/health/**").permitAll();
                    if (publicOperations) {
                        a.requestMatchers(OPERATIONS)
                                .permitAll();
                    } else {
                        a.requestMatchers(OPERATIONS)
                                .hasRole(OPERATOR_READ.name());
                    }
                    a.anyRequest().permitAll();
                });
        return http.build();
    }
}
