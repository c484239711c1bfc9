package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.axon.messaging.OriginCorrelationDataProvider;
import io.durablecheckout.orchestrator.checkout.OperatorMetadata;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.serialization.Serializer;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;

/**
 * Metadata that follows a command into the events it causes: the origin (correlation, trace) and, for operator
 * actions, who acted, why and when. Declaring any provider replaces Axon's default, so the origin is declared too:
 * one provider for both, which reads them from a stored event without deserializing its metadata (decision 83).
 */
@Configuration(proxyBeanMethods = false)
class CorrelationConfiguration {

    @Bean
    public CorrelationDataProvider originProvider(@Qualifier("eventSerializer") Serializer eventSerializer) {
        return new OriginCorrelationDataProvider(eventSerializer,
                List.of(OperatorMetadata.ACTOR, OperatorMetadata.REASON, OperatorMetadata.ACTED_AT));
    }
}
