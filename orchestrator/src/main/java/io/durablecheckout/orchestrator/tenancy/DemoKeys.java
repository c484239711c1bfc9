package io.durablecheckout.orchestrator.tenancy;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The demo's keys, kept in step with the configuration at every start, before the HTTP port opens: with
 * {@code checkout.demo.enabled=true} the configured demo keys are the active ones of their label (a changed key
 * revokes the previous one); with the demo off they are all revoked. The demo admin key exists only in the
 * embedded demo (no {@code spring.datasource.url}). A demo key an admin revoked or rotated stays so, and the
 * rotation's replacement stays active (ApiKeys.ensureLabelledKey); every change is in audit_log.
 */
@Component
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class DemoKeys implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(DemoKeys.class);

    private final ApiKeys apiKeys;
    private final AuditLog audit;
    private final Environment env;

    public DemoKeys(ApiKeys apiKeys, AuditLog audit, Environment env) {
        this.apiKeys = apiKeys;
        this.audit = audit;
        this.env = env;
    }

    @Override
    public void afterSingletonsInstantiated() {
        // bound here, not injected: a test re-runs this against other environments
        AccessProperties.Demo keys = Binder.get(env).bindOrCreate("checkout.demo", AccessProperties.Demo.class);
        boolean demo = keys.enabled();
        boolean embedded = env.getProperty("spring.datasource.url", "").isBlank();
        String reason = demo ? "demo keys of checkout.demo.*" : "checkout.demo.enabled=false";
        List<String> done = new ArrayList<>();
        done.addAll(apiKeys.ensureLabelledKey("demo", "Demo tenant", "demo:tenant",
                demo ? keys.apiKey() : null, EnumSet.of(Caller.Role.TENANT), audit, reason));
        done.addAll(apiKeys.ensureLabelledKey("operator", "Demo operator", "demo:operator",
                demo ? keys.operatorApiKey() : null,
                EnumSet.of(Caller.Role.OPERATOR_READ, Caller.Role.OPERATOR_REPAIR), audit, reason));
        done.addAll(apiKeys.ensureLabelledKey("admin", "Demo administrator", "demo:admin",
                demo && embedded ? keys.adminApiKey() : null,
                EnumSet.of(Caller.Role.ADMIN), audit, demo && !embedded
                        ? "the demo admin key is only for the embedded demo" : reason));
        if (!done.isEmpty()) {
            log.info("Demo keys: {}", String.join("; ", done));
        }
        if (demo) {
            log.info("Demo keys active (checkout.demo.enabled=true): tenant 'demo', an operator{}",
                    embedded ? " and an administrator" : "");
        }
    }
}
