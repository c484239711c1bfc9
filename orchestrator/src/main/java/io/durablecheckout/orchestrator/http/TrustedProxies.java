package io.durablecheckout.orchestrator.http;

import org.apache.catalina.util.NetMask;
import org.apache.catalina.valves.RemoteIpValve;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Whose {@code X-Forwarded-For}, {@code X-Forwarded-Proto} and {@code X-Forwarded-Port} are believed: only a peer in
 * {@code checkout.security.trusted-proxies} (addresses or CIDR blocks; default none), on every platform. Spring Boot's
 * own switch is kept at {@code none} (application.yml): left unset, it trusts any private or loopback peer as soon as
 * it detects Kubernetes or Cloud Foundry from the environment, which let any client behind such a peer name its own
 * address (and evade or aim the failed-authentication throttle) and mark the session cookie Secure. A configured
 * list installs Tomcat's RemoteIpValve with exactly these blocks as its internal proxies: the client is the rightmost
 * address of {@code X-Forwarded-For} that is not a trusted proxy, and TLS is believed only from them. Setting
 * {@code server.forward-headers-strategy} to anything but {@code none} is refused at start, so there is one switch.
 * The start-up log says in one line what is trusted.
 */
@Configuration(proxyBeanMethods = false)
public class TrustedProxies {

    private static final Logger log = LoggerFactory.getLogger(TrustedProxies.class);
    private static final Pattern LITERAL = Pattern.compile(
            "(\\d{1,3}(\\.\\d{1,3}){3}|[0-9A-Fa-f.:]*:[0-9A-Fa-f.:]*)(/\\d{1,3})?");

    /** What is wrong with these settings, for SettingsConsistency's refusal at start (before any bean). */
    public static List<String> problems(Environment env) {
        List<String> problems = new ArrayList<>();
        String strategy = env.getProperty("server.forward-headers-strategy", "none").trim();
        if (!strategy.equalsIgnoreCase("none")) {
            problems.add("server.forward-headers-strategy=" + strategy + " is not used: name the proxies whose "
                    + "X-Forwarded-* headers are trusted in checkout.security.trusted-proxies (docs/security.md, "
                    + "\"Dashboard sessions\")");
        }
        try {
            blocks(configured(env));
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
        return problems;
    }

    @Bean
    WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> trustedProxiesValve(Environment env) {
        List<String> problems = problems(env);
        if (!problems.isEmpty()) {
            throw new IllegalStateException(String.join("; ", problems));
        }
        List<String> blocks = blocks(configured(env));
        return factory -> {
            if (blocks.isEmpty()) {
                log.info("Forwarded headers trusted from: nobody (checkout.security.trusted-proxies is empty); "
                        + "X-Forwarded-For/-Proto/-Port are ignored, the client is the connection's peer");
                return;
            }
            RemoteIpValve valve = new RemoteIpValve();
            valve.setInternalProxies(String.join(",", blocks)); // a list with '/' is read as CIDR blocks, not a regex
            valve.setTrustedProxies(null);
            valve.setRemoteIpHeader("X-Forwarded-For");
            valve.setProtocolHeader("X-Forwarded-Proto");
            valve.setPortHeader("X-Forwarded-Port");
            factory.addEngineValves(valve);
            log.info("Forwarded headers trusted from: {} only (checkout.security.trusted-proxies); X-Forwarded-For/"
                    + "-Proto/-Port from any other peer are ignored", String.join(", ", blocks));
        };
    }

    private static List<String> configured(Environment env) {
        return Binder.get(env).bind("checkout.security.trusted-proxies", Bindable.listOf(String.class))
                .orElse(List.of());
    }

    /** Each entry as a CIDR block (a bare address: /32 or /128); anything else refused, never looked up by name. */
    static List<String> blocks(List<String> configured) {
        List<String> blocks = new ArrayList<>();
        for (String raw : configured) {
            String entry = raw == null ? "" : raw.trim();
            if (entry.isEmpty()) continue;
            if (!LITERAL.matcher(entry).matches() || (entry.indexOf(':') < 0 && java.util.Arrays.stream(
                    entry.replaceFirst("/.*", "").split("\\.")).anyMatch(octet -> Integer.parseInt(octet) > 255))) {
                throw new IllegalArgumentException("checkout.security.trusted-proxies: '" + TextLimits.excerpt(entry)
                        + "' is not an IP address or CIDR block");
            }
            String block = entry.contains("/") ? entry : entry + (entry.indexOf(':') >= 0 ? "/128" : "/32");
            try {
                new NetMask(block);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("checkout.security.trusted-proxies: '" + TextLimits.excerpt(entry)
                        + "' is not an IP address or CIDR block: " + e.getMessage());
            }
            blocks.add(block);
        }
        return List.copyOf(blocks);
    }
}
