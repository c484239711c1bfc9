package io.durablecheckout.orchestrator.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Clock;

/** The one clock: read at the edge (HTTP), then carried inside commands so aggregates never read time. */
@Configuration(proxyBeanMethods = false)
class ClockConfiguration {
    @Bean
    public Clock clock() {
        return Clock.systemUTC();
    }
}
