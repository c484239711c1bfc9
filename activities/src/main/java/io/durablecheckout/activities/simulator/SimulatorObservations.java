package io.durablecheckout.activities.simulator;

import io.micrometer.observation.ObservationPredicate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.server.observation.ServerRequestObservationContext;

/**
 * The simulator's requests are not observed ({@code http.server.requests}): it stands in for an external provider,
 * whose calls are not this service's traffic, and the observation was about a quarter of the request threads' CPU
 * under load (docs/decisions.md 55). The product's own requests keep theirs. Requests are still served, filtered and
 * authenticated exactly as before.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "checkout.simulator.enabled", havingValue = "true", matchIfMissing = true)
public class SimulatorObservations {

    static final String PATH = "/simulator/";

    @Bean
    ObservationPredicate simulatorRequestsNotObserved() {
        return (name, context) -> !(context instanceof ServerRequestObservationContext request
                && request.getCarrier().getRequestURI().startsWith(PATH));
    }
}
