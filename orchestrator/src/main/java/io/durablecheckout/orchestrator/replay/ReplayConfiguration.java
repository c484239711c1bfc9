package io.durablecheckout.orchestrator.replay;

import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.serialization.Serializer;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;

/** Records, with every Checkout decision, the input that caused it (see {@link RecordedInputs}). */
@Configuration(proxyBeanMethods = false)
public class ReplayConfiguration {

    @Bean
    public CorrelationDataProvider inputRecordingProvider() {
        return new InputRecordingProvider();
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
