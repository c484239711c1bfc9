package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.axon.saga.ChangedOnlySagaStore;
import io.durablecheckout.orchestrator.axon.saga.ClaimWatchingTokenStore;

import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineManager;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.modelling.saga.repository.SagaStore;
import org.axonframework.modelling.saga.repository.jdbc.JdbcSagaStore;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.List;

/**
 * Fails start-up, naming what is wrong, when a component Axon would silently replace with a non-durable or
 * non-transactional default is not the real one: the in-memory deadline manager loses every lease on restart,
 * {@code NoTransactionManager} breaks the atomicity of transition and intent, XStream is not what the stored events
 * were written with.
 */
@Component
public class WiringVerifier implements SmartInitializingSingleton {

    private final ApplicationContext context;
    private final Environment environment;

    public WiringVerifier(ApplicationContext context, Environment environment) {
        this.context = context;
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> problems = problems();
        if (!problems.isEmpty()) {
            throw new IllegalStateException("Refusing to start: the durable wiring is not in place:\n - "
                    + String.join("\n - ", problems));
        }
    }

    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        org.axonframework.config.Configuration axon = context.getBean(org.axonframework.config.Configuration.class);
        boolean axonServer = environment.getProperty("axon.axonserver.enabled", Boolean.class, false);

        expect(problems, "deadline manager", axon.deadlineManager(), DbSchedulerDeadlineManager.class);
        expect(problems, "transaction manager", axon.getComponent(TransactionManager.class), SpringTransactionManager.class);
        TokenStore tokens = context.getBean(TokenStore.class);
        expect(problems, "token store", tokens instanceof ClaimWatchingTokenStore watch ? watch.delegate() : tokens,
                JdbcTokenStore.class);
        SagaStore<?> sagas = context.getBean(SagaStore.class);
        expect(problems, "saga store", sagas instanceof ChangedOnlySagaStore changedOnly ? changedOnly.delegate() : sagas,
                JdbcSagaStore.class);
        expect(problems, "general serializer", axon.serializer(), JacksonSerializer.class);
        expect(problems, "event serializer", axon.eventSerializer(), JacksonSerializer.class);
        expect(problems, "message serializer", axon.messageSerializer(), JacksonSerializer.class);
        if (!axonServer) {
            expect(problems, "event store", axon.eventStore(), EmbeddedEventStore.class);
            expect(problems, "event storage engine", context.getBean(EventStorageEngine.class), JdbcEventStorageEngine.class);
        } else if (axon.eventStore() == null) {
            problems.add("event store: none configured with axon.axonserver.enabled=true");
        }
        return problems;
    }

    private static void expect(List<String> problems, String what, Object actual, Class<?> expected) {
        if (actual == null) {
            problems.add(what + ": none configured, expected " + expected.getSimpleName());
        } else if (!expected.isInstance(actual)) {
            problems.add(what + ": " + actual.getClass().getName() + ", expected " + expected.getName());
        }
    }
}
