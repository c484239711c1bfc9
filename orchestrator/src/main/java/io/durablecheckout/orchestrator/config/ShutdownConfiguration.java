package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.axon.deadline.DeadlineSchedulerShutdown;
import com.github.kagkarlsson.scheduler.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextClosedEvent;

import java.time.Duration;

/**
 * A stop (SIGTERM) in a fixed order, within {@code checkout.shutdown.timeout} (docs/operations.md, "Rolling
 * restart"). Spring stops the lifecycle phases from the highest down, then destroys the beans, dependents first:
 * <ol>
 *   <li>readiness goes to REFUSING_TRAFFIC as the context starts closing; the web server stops accepting and lets
 *       the requests in progress finish (graceful, {@code spring.lifecycle.timeout-per-shutdown-phase}; phases
 *       {@code MAX - 1024} and {@code MAX - 2048}, Boot's);</li>
 *   <li>{@link ProcessorShutdown}: the event processors stop and release their segment claims; the payments'
 *       provider calls in flight finish;</li>
 *   <li>{@link DeadlineSchedulerShutdown}: db-scheduler lets its running deadlines finish;</li>
 *   <li>Axon's own shutdown ({@code MAX - 3072}), with nothing left running;</li>
 *   <li>bean destruction: the connection pool closes, and only then the embedded PostgreSQL (the pool depends on
 *       it; it registers no shutdown hook of its own, which would race with all of this).</li>
 * </ol>
 * Past the bound the process halts and what remains is left to recovery, as after a crash (leases, claim timeouts,
 * the dead-execution check): safe, only slower.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ShutdownConfiguration.ShutdownProperties.class)
public class ShutdownConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ShutdownConfiguration.class);

    static final int PROCESSORS_PHASE = Integer.MAX_VALUE - 2560;
    static final int DEADLINES_PHASE = Integer.MAX_VALUE - 2816;

    /**
     * {@code checkout.shutdown.*}.
     *
     * @param timeout           the whole stop, after which the process halts (default 20 s: under Kubernetes' 30 s
     *                          grace period)
     * @param processorsTimeout how long the processors may take to finish their batches and release their claims
     *                          (default 10 s)
     */
    @ConfigurationProperties("checkout.shutdown")
    public record ShutdownProperties(Duration timeout, Duration processorsTimeout) {
        public ShutdownProperties {
            timeout = timeout != null ? timeout : Duration.ofSeconds(20);
            processorsTimeout = processorsTimeout != null ? processorsTimeout : Duration.ofSeconds(10);
        }
    }

    @Bean
    ProcessorShutdown processorShutdown(org.axonframework.config.EventProcessingConfiguration processing,
                                        ShutdownProperties properties,
                                        ObjectProvider<org.axonframework.eventsourcing.eventstore.EventStore> eventStore,
                                        ObjectProvider<io.durablecheckout.activities.payments.ProviderCalls> calls,
                                        ObjectProvider<io.durablecheckout.activities.payments.PaymentIntake> intake) {
        // the payments' provider calls in flight finish (bounded) while the store and the pool are still there
        return new ProcessorShutdown(processing, properties.processorsTimeout(), eventStore.getIfAvailable(), () -> {
            intake.ifAvailable(io.durablecheckout.activities.payments.PaymentIntake::close);
            calls.ifAvailable(io.durablecheckout.activities.payments.ProviderCalls::close);
        });
    }

    @Bean
    DeadlineSchedulerShutdown deadlineSchedulerShutdown(ObjectProvider<Scheduler> scheduler) {
        return new DeadlineSchedulerShutdown(scheduler.getIfAvailable(), DEADLINES_PHASE); // none with db-scheduler.enabled=false
    }

    /** The scheduler is stopped in its place in the order above, not again when its bean is destroyed. */
    @Bean
    static BeanFactoryPostProcessor schedulerStoppedInOrder() {
        return beanFactory -> {
            for (String name : beanFactory.getBeanNamesForType(Scheduler.class, true, false)) {
                if (beanFactory.getBeanDefinition(name) instanceof AbstractBeanDefinition definition) {
                    definition.setDestroyMethodName(""); // none, and none inferred
                }
            }
        };
    }

    /**
     * Step 1, first of all: readiness down (OUT_OF_SERVICE at /actuator/health/readiness), so a load balancer or
     * Kubernetes stops sending before anything else stops. (Boot's web context does this too; here it is certain.)
     */
    @Bean
    ApplicationListener<ContextClosedEvent> readinessDownOnStop() {
        return event -> AvailabilityChangeEvent.publish(event.getApplicationContext(), ReadinessState.REFUSING_TRAFFIC);
    }

    /**
     * The bound: a stop still under way after {@code timeout} halts the process. (A context closed while its JVM
     * goes on, a test's, ends the watch when it is closed.)
     */
    @Bean
    ApplicationListener<ContextClosedEvent> shutdownWatchdog(ShutdownProperties properties) {
        return event -> {
            if (!(event.getApplicationContext() instanceof ConfigurableApplicationContext context)) {
                return;
            }
            long deadline = System.nanoTime() + properties.timeout().toNanos();
            Thread watchdog = new Thread(() -> {
                while (context.isActive()) {
                    if (System.nanoTime() - deadline > 0) {
                        log.error("Shutdown still under way after {}: halting; recovery takes over what is left",
                                properties.timeout());
                        Runtime.getRuntime().halt(1);
                    }
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "shutdown-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        };
    }
}
