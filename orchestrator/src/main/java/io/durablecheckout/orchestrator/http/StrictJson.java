package io.durablecheckout.orchestrator.http;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.core.StreamReadFeature;

/**
 * Request bodies with a key given twice are refused (400), not read as "the last one wins": two amounts in one
 * checkout are an attack or a bug, and whichever we picked, the client's other layer may have checked the other.
 */
@Configuration(proxyBeanMethods = false)
public class StrictJson {

    @Bean
    JsonMapperBuilderCustomizer refuseDuplicateKeys() {
        return builder -> builder.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
    }
}
