package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.checkout.OperatorMetadata;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.correlation.MessageOriginProvider;
import org.axonframework.messaging.correlation.SimpleCorrelationDataProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Metadata that follows a command into the events it causes: the origin (correlation, trace) and, for operator
 * actions, who acted, why and when. Declaring any provider replaces Axon's default, so the origin one is declared too.
 */
@Configuration(proxyBeanMethods = false)
class CorrelationConfiguration {

    @Bean
    public CorrelationDataProvider messageOriginProvider() {
        return new MessageOriginProvider();
    }

    @Bean
    public CorrelationDataProvider operatorActionProvider() {
        return new SimpleCorrelationDataProvider(OperatorMetadata.ACTOR, OperatorMetadata.REASON,
                OperatorMetadata.ACTED_AT);
    }
}
