package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.orchestrator.serialization.EventUpcasters;
import org.axonframework.config.ConfigurerModule;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.serialization.Serializer;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

/** Records, with every Checkout decision, the input that caused it (see {@link RecordedInputs}). */
@Configuration(proxyBeanMethods = false)
class ReplayConfiguration {

    @Bean
    public CorrelationDataProvider inputRecordingProvider() {
        return new InputRecordingProvider();
    }

    /**
     * Registered on the event store (the event bus), which stores what it returns; through Axon's configuration (a
     * bean depending on the event bus would close a dependency cycle), before anything is handled.
     */
    @Bean
    public ConfigurerModule compactRecordedInputs() {
        return configurer -> configurer.onInitialize(config -> config.onStart(Integer.MIN_VALUE,
                () -> config.eventBus().registerDispatchInterceptor(new InputMetadataCompactor())));
    }

    @Bean
    public StoredHistories storedHistories(DataSource dataSource, @Qualifier("eventSerializer") Serializer serializer) {
        return new StoredHistories(dataSource, serializer, EventUpcasters.chain());
    }

    @Bean
    public CheckoutReplayer checkoutReplayer() {
        return new CheckoutReplayer();
    }
}
