package io.durablecheckout.orchestrator.config;

import org.axonframework.modelling.saga.ResourceInjector;
import org.axonframework.modelling.saga.repository.NoResourceInjector;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sagas get nothing injected. Axon's default for Spring autowires every saga instance it loads, which on the saga
 * thread meant a bean-property walk per event (docs/decisions.md 55) for a saga with no injected members: it takes
 * what it needs ({@code CommandGateway}) as a handler parameter. ArchitectureTest keeps injection annotations off saga
 * classes, so a member that would silently stay null cannot be added.
 */
@Configuration(proxyBeanMethods = false)
class SagaResourceConfiguration {

    @Bean
    ResourceInjector resourceInjector() {
        return NoResourceInjector.INSTANCE;
    }
}
