package io.durablecheckout.orchestrator.tenancy;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Seeds a demo tenant and an operator so the README walkthrough works on a fresh machine. On by default; turn it off
 * ({@code checkout.demo.enabled=false}) anywhere real keys are used.
 */
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@Component
@ConditionalOnProperty(name = "checkout.demo.enabled", havingValue = "true", matchIfMissing = true)
public class DemoTenantSeeder implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(DemoTenantSeeder.class);

    private final ApiKeys apiKeys;
    private final Environment env;

    public DemoTenantSeeder(ApiKeys apiKeys, Environment env) {
        this.apiKeys = apiKeys;
        this.env = env;
    }

    @Override
    public void run(ApplicationArguments args) {
        String tenantKey = env.getProperty("checkout.demo.api-key", "demo-api-key");
        String operatorKey = env.getProperty("checkout.demo.operator-api-key", "demo-operator-key");
        apiKeys.register("demo", "Demo tenant", tenantKey, Caller.Role.TENANT);
        apiKeys.register("operator", "Demo operator", operatorKey, Caller.Role.OPERATOR);
        log.info("Demo tenant 'demo' and an operator are registered (checkout.demo.enabled=true)");
    }
}
