package io.durablecheckout.activities.simulator;

import io.durablecheckout.activities.payments.WebhookSignatures;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Just the simulator (and a webhook receiver) in a real web server, on the test's PostgreSQL. Axon's
 * auto-configuration is excluded: the simulator has nothing to do with the event store.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
        "org.axonframework.springboot.autoconfig.AvroSerializerAutoConfiguration",
        "org.axonframework.springboot.autoconfig.AxonAutoConfiguration",
        "org.axonframework.springboot.autoconfig.AxonTimeoutAutoConfiguration",
        "org.axonframework.springboot.autoconfig.AxonDbSchedulerAutoConfiguration",
        "org.axonframework.springboot.autoconfig.AxonJobRunrAutoConfiguration",
        "org.axonframework.springboot.autoconfig.AxonServerActuatorAutoConfiguration",
        "org.axonframework.springboot.autoconfig.AxonServerAutoConfiguration",
        "org.axonframework.springboot.autoconfig.AxonServerBusAutoConfiguration",
        "org.axonframework.springboot.autoconfig.AxonTracingAutoConfiguration",
        "org.axonframework.springboot.autoconfig.EventProcessingAutoConfiguration",
        "org.axonframework.springboot.autoconfig.InfraConfiguration",
        "org.axonframework.springboot.autoconfig.InterceptorAutoConfiguration",
        "org.axonframework.springboot.autoconfig.JdbcAutoConfiguration",
        "org.axonframework.springboot.autoconfig.legacyjpa.JpaJavaxAutoConfiguration",
        "org.axonframework.springboot.autoconfig.legacyjpa.JpaJavaxEventStoreAutoConfiguration",
        "org.axonframework.springboot.autoconfig.JpaAutoConfiguration",
        "org.axonframework.springboot.autoconfig.JpaEventStoreAutoConfiguration",
        "org.axonframework.springboot.autoconfig.MetricsAutoConfiguration",
        "org.axonframework.springboot.autoconfig.MicrometerMetricsAutoConfiguration",
        "org.axonframework.springboot.autoconfig.NoOpTransactionAutoConfiguration",
        "org.axonframework.springboot.autoconfig.ObjectMapperAutoConfiguration",
        "org.axonframework.springboot.autoconfig.CBORMapperAutoConfiguration",
        "org.axonframework.springboot.autoconfig.OpenTelemetryAutoConfiguration",
        "org.axonframework.springboot.autoconfig.SecurityAutoConfiguration",
        "org.axonframework.springboot.autoconfig.TransactionAutoConfiguration",
        "org.axonframework.springboot.autoconfig.UpdateCheckerAutoConfiguration",
        "org.axonframework.springboot.autoconfig.XStreamAutoConfiguration"})
@EnableConfigurationProperties(SimulatorProperties.class)
@Import({PaymentProviderSimulator.class, SimulatorServer.class, SimulatorLedger.class, SimulatorWebhookSender.class,
        SimulatorFaults.class, SimulatorTestApplication.WebhookReceiver.class})
public class SimulatorTestApplication {

    public record ReceivedWebhook(String body, String id, long timestamp, String signature) {
    }

    /** Stands in for the orchestrator's callback endpoint. */
    @RestController
    public static class WebhookReceiver {

        static final List<ReceivedWebhook> RECEIVED = new CopyOnWriteArrayList<>();

        @PostMapping("/api/v1/payment-callbacks")
        public void receive(@RequestBody String body,
                            @RequestHeader(WebhookSignatures.ID_HEADER) String id,
                            @RequestHeader(WebhookSignatures.TIMESTAMP_HEADER) long timestamp,
                            @RequestHeader(WebhookSignatures.SIGNATURE_HEADER) String signature) {
            RECEIVED.add(new ReceivedWebhook(body, id, timestamp, signature));
        }
    }
}
