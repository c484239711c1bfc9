package io.durablecheckout.orchestrator.faults;

import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryProjection;
import io.durablecheckout.orchestrator.saga.CheckoutSaga;
import io.durablecheckout.activities.WorkerPauseHook;
import org.axonframework.config.ConfigurerModule;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where each {@link CrashPoint} is reached: interceptors on the event store, the processors and the deadline manager,
 * and a servlet filter for {@link CrashPoint#HTTP_ACCEPTED}. Registered only when a crash point is armed, so a normal
 * process carries none of them; the product's code names no crash point. Also the worker pause of
 * {@code checkout.fault-injection.park-*}, through the activities' {@link WorkerPauseHook} seam.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(FaultInjectionProperties.class)
class CrashPointInterceptors {

    @Bean
    public FilterRegistrationBean<HttpAcceptedCrashFilter> httpAcceptedCrashFilter(CrashPoints crashes) {
        FilterRegistrationBean<HttpAcceptedCrashFilter> registration = new FilterRegistrationBean<>(
                new HttpAcceptedCrashFilter(() -> crashes.reached(CrashPoint.HTTP_ACCEPTED)));
        registration.addUrlPatterns(HttpAcceptedCrashFilter.PATH);
        registration.setEnabled(crashes.isArmed(CrashPoint.HTTP_ACCEPTED));
        return registration;
    }

    /** Parks the worker of one step and token past its lease (the seed's stale owner, in a node process). */
    @Bean
    @ConditionalOnProperty("checkout.fault-injection.park-step")
    public WorkerPauseHook parkingPauseHook(FaultInjectionProperties properties) {
        return properties.parkStep() == null ? WorkerPauseHook.NONE // set but blank: no pause, as before
                : new ParkingPauseHook(properties.parkStep(), properties.parkToken(), properties.parkDuration());
    }

    @Bean
    public ConfigurerModule crashPointProcessorInterceptors(CrashPoints crashes) {
        return configurer -> {
            if (!crashes.isArmed()) {
                return;
            }
            configurer.eventProcessing(processing -> processing.registerDefaultHandlerInterceptor(
                    (config, processor) -> processorInterceptor(crashes, processor)));
        };
    }

    static MessageHandlerInterceptor<EventMessage<?>> processorInterceptor(CrashPoints crashes, String processor) {
        return (unitOfWork, chain) -> {
            Object result = chain.proceed();
            Object payload = unitOfWork.getMessage().getPayload();
            CrashPoint point = switch (processor) {
                case "inventory" -> CrashPoint.INVENTORY_EFFECT;
                case "payments" -> payload instanceof PaymentReconciliationRequestedEvent
                        ? CrashPoint.RECONCILIATION_LOOKUP
                        : payload instanceof io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent
                        ? CrashPoint.CAPTURE_EFFECT : CrashPoint.PAYMENT_EFFECT;
                case "receipts" -> CrashPoint.RECEIPT_EFFECT;
                case CheckoutSaga.PROCESSOR ->
                        payload instanceof ActivityResultEvent ? CrashPoint.SAGA_RECORDED : null;
                case CheckoutSummaryProjection.PROCESSOR -> CrashPoint.PROJECTION_UPDATE;
                default -> null;
            };
            if (point != null && crashes.isArmed(point)) {
                unitOfWork.onPrepareCommit(u -> crashes.reached(point));
            }
            if (crashes.isArmed(CrashPoint.MID_BATCH) && handledInThisBatch(unitOfWork) == 2) {
                crashes.reached(CrashPoint.MID_BATCH);
            }
            return result;
        };
    }

    private static int handledInThisBatch(UnitOfWork<?> unitOfWork) {
        return unitOfWork.root().getOrComputeResource(CrashPointInterceptors.class.getName(), k -> new AtomicInteger())
                .incrementAndGet();
    }

    @Bean
    public SmartInitializingSingleton crashPointStoreAndDeadlineInterceptors(CrashPoints crashes, EventStore eventStore,
                                                                          DeadlineManager deadlines) {
        return () -> {
            if (!crashes.isArmed()) {
                return;
            }
            eventStore.registerDispatchInterceptor(messages -> {
                CurrentUnitOfWork.ifStarted(uow -> messages.forEach(m -> {
                    CrashPoint point = appended(m.getPayload());
                    if (point != null && crashes.isArmed(point)) {
                        uow.root().afterCommit(u -> crashes.reached(point));
                    }
                }));
                return (i, m) -> m;
            });
            deadlines.registerHandlerInterceptor((unitOfWork, chain) -> {
                Object result = chain.proceed();
                String name = ((DeadlineMessage<?>) unitOfWork.getMessage()).getDeadlineName();
                CrashPoint point = Deadlines.LEASE_EXPIRED.equals(name) ? CrashPoint.LEASE_DEADLINE
                        : Deadlines.RECONCILIATION_DUE.equals(name) ? CrashPoint.RECONCILIATION_DEADLINE : null;
                if (point != null && crashes.isArmed(point)) {
                    unitOfWork.onPrepareCommit(u -> crashes.reached(point));
                }
                return result;
            });
        };
    }

    private static CrashPoint appended(Object payload) {
        if (payload instanceof ActivityIntent intent) {
            return intent.step().isCompensation() ? CrashPoint.COMPENSATION_REQUESTED : CrashPoint.INTENT_APPENDED;
        }
        if (payload instanceof ActivityResultEvent) {
            return CrashPoint.RESULT_APPENDED;
        }
        return null;
    }
}
