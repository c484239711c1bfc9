package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.orchestrator.serialization.EventUpcasters;
import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.CancellationNoticeDeliverySucceededEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.checkout.Checkout;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import org.axonframework.common.Registration;
import org.axonframework.config.Configuration;
import org.axonframework.config.DefaultConfigurer;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.deadline.GenericDeadlineMessage;
import org.axonframework.eventhandling.DomainEventData;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.GenericDomainEventEntry;
import org.axonframework.eventsourcing.eventstore.inmemory.InMemoryEventStorageEngine;
import org.axonframework.messaging.MessageDispatchInterceptor;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.correlation.MessageOriginProvider;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import javax.annotation.Nonnull;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records the corpus's paths that need a lease to run out or a worker to fall silent (lease renewal and expiry, a
 * deferred lease, a stale owner's result rejected, a provider notification held): the integration tests would wait
 * for real leases, so these checkouts run in-process on Axon's own command bus, unit of work, correlation providers
 * and event bus interceptors (the recording path of the application: {@link InputRecordingProvider},
 * {@link InputMetadataCompactor}), with a deadline manager that records what it is asked and fires a deadline when
 * the scenario says, at its due time. The events are serialized as the JDBC event store stores them. Only with
 * {@code -Dreplay.corpus.record=true} (docs/replay.md, "Recording the corpus"):
 * <pre>
 * ./mvnw -o -B -q test -pl orchestrator -am -Dtest=CorpusRecorderTest -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dreplay.corpus.record=true
 * </pre>
 */
@EnabledIfSystemProperty(named = "replay.corpus.record", matches = "true")
class CorpusRecorderTest {

    static final Path CORPUS = Path.of("src/test/resources/replay-corpus");
    private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    private static final WorkflowPolicy POLICY = new WorkflowPolicy(Duration.ofSeconds(10), Duration.ofSeconds(15),
            Duration.ofSeconds(1), Duration.ofSeconds(30), 3, Duration.ofSeconds(2), Duration.ofMinutes(5), 3);

    @Test
    void a_lease_renewed_then_expired_and_the_stale_owners_result_rejected() throws Exception {
        try (Run run = new Run("co_corpus-lease-expiry")) {
            run.start();
            Instant claimed = run.now(2);
            run.send(new RenewLeaseCommand(run.id, new ActivityHeartbeatEvent(run.id, Step.RESERVE_STOCK,
                    run.op(Step.RESERVE_STOCK), new FencingToken(1)), claimed));
            run.fire(io.durablecheckout.orchestrator.checkout.Deadlines.LEASE_EXPIRED); // renewed lease runs out
            run.send(new RecordActivityResultCommand(run.id, new StockReservationSucceededEvent(run.id,
                    run.op(Step.RESERVE_STOCK), new FencingToken(1)), run.now(1))); // the first owner, late
            run.answerAll();
            run.record("ActivityLeaseRenewedEvent", "ActivityLeaseExpiredEvent", "ActivityResultRejectedEvent",
                    "CheckoutCompletedEvent");
        }
    }

    @Test
    void a_lease_nobody_claimed_is_deferred_once() throws Exception {
        try (Run run = new Run("co_corpus-lease-deferred")) {
            run.start();
            run.fire(io.durablecheckout.orchestrator.checkout.Deadlines.LEASE_EXPIRED); // the intent waits in a queue
            run.answerAll();
            run.record("ActivityLeaseDeferredEvent", "CheckoutCompletedEvent");
        }
    }

    /**
     * The authorization fails as often as the policy allows and waits in manual review; the provider's notification
     * that it is authorized is held as evidence, and the operator's resolution takes its reference.
     */
    @Test
    void a_provider_notification_during_a_review_is_held_and_settles_the_resolution() throws Exception {
        try (Run run = new Run("co_corpus-notification-held")) {
            run.start();
            run.answer(Step.RESERVE_STOCK);
            for (int attempt = 1; attempt <= POLICY.maxAttempts(); attempt++) {
                if (attempt > 1) {
                    run.fire(io.durablecheckout.orchestrator.checkout.Deadlines.RETRY_DUE);
                }
                run.send(new RecordActivityResultCommand(run.id, new ActivityAttemptFailedEvent(run.id,
                        Step.AUTHORIZE_PAYMENT, run.op(Step.AUTHORIZE_PAYMENT), new FencingToken(attempt),
                        "provider unavailable"), run.now(1)));
            }
            run.send(new RecordProviderNotificationCommand(run.id, run.op(Step.AUTHORIZE_PAYMENT),
                    PaymentLookupOutcome.AUTHORIZED, "psp-auth-7", "ntf-1", run.now(1)));
            run.send(new ResolveManualReviewCommand(run.id, ManualResolution.AUTHORIZED, null,
                    "the provider's notification says authorized", null, run.now(60)));
            run.answerAll();
            run.record("ManualReviewRequiredEvent", "ProviderNotificationHeldEvent", "ManualReviewResolvedEvent",
                    "CheckoutCompletedEvent");
        }
    }

    /** A deferred capture nobody asks for: the hold's deadline cancels the checkout (void, release, notice). */
    @Test
    void an_uncaptured_hold_lapses() throws Exception {
        try (Run run = new Run("co_corpus-hold-lapsed")) {
            run.start(io.durablecheckout.api.values.CaptureMode.DEFERRED);
            run.answer(Step.RESERVE_STOCK);
            run.answer(Step.AUTHORIZE_PAYMENT);
            run.answer(Step.SEND_RECEIPT);
            run.fire(io.durablecheckout.orchestrator.checkout.Deadlines.HOLD_EXPIRED);
            run.answerAll();
            run.record("CaptureAwaitedEvent", "CheckoutCancellationRequestedEvent", "CheckoutCancelledEvent");
        }
    }

    /** A payment that needs the customer, who never acts: the deadline cancels the checkout (void, release). */
    @Test
    void a_customer_who_never_authenticates() throws Exception {
        try (Run run = new Run("co_corpus-3ds-timed-out")) {
            run.start();
            run.answer(Step.RESERVE_STOCK);
            run.send(new RecordActivityResultCommand(run.id,
                    new io.durablecheckout.api.activity.PaymentAuthorizationActionRequiredEvent(run.id,
                            run.op(Step.AUTHORIZE_PAYMENT), new FencingToken(1),
                            "{\"type\":\"redirect_to_url\",\"redirect_to_url\":{\"url\":\"https://x.test/3ds\"}}",
                            "pi_corpus"), run.now(1)));
            run.fire(io.durablecheckout.orchestrator.checkout.Deadlines.CUSTOMER_ACTION_DUE);
            run.answerAll();
            run.record("CustomerActionRequiredEvent", "CheckoutCancellationRequestedEvent", "CheckoutCancelledEvent");
        }
    }

    // ------------------------------------------------------------------------------------------- the harness

    /** One checkout on its own in-memory Axon configuration. */
    private static final class Run implements AutoCloseable {
        final CheckoutId id;
        private final Deadlines deadlines = new Deadlines();
        private final Configuration config;
        private final Set<String> answered = new HashSet<>();
        private Instant clock = T0;

        Run(String checkoutId) {
            this.id = new CheckoutId(checkoutId);
            config = DefaultConfigurer.defaultConfiguration(false) // no configurer modules: no Axon Server
                    .configureSerializer(c -> AxonJson.strictEventSerializer())
                    .configureEmbeddedEventStore(c -> new InMemoryEventStorageEngine())
                    .configureAggregate(Checkout.class)
                    .configureDeadlineManager(c -> deadlines)
                    .registerComponent(WorkflowPolicy.class, c -> POLICY)
                    .configureCorrelationDataProviders(c -> List.of(new MessageOriginProvider(),
                            new InputRecordingProvider()))
                    .buildConfiguration();
            config.start();
            config.eventBus().registerDispatchInterceptor(new InputMetadataCompactor());
        }

        Instant now(int secondsLater) {
            clock = clock.plusSeconds(secondsLater);
            return clock;
        }

        OperationId op(Step step) {
            return OperationId.of(id, step);
        }

        void start() {
            start(null);
        }

        void start(io.durablecheckout.api.values.CaptureMode capture) {
            send(new StartCheckoutCommand(id, new TenantId("demo"), List.of(new LineItem(new Sku("SKU-0001"), 1)),
                    new Money(1_500, "EUR"), "tok_approve", "ada@example.test", "idem-" + id.value(),
                    "fp-" + id.value(), clock, null, capture));
        }

        void send(Object command) {
            config.commandGateway().sendAndWait(command);
        }

        /** Fires the pending deadline of {@code name} at its due time, as the deadline manager would. */
        void fire(String name) throws Exception {
            Deadlines.Scheduled due = deadlines.take(name);
            if (due.at().isAfter(clock)) {
                clock = due.at();
            }
            DeadlineMessage<Object> message = GenericDeadlineMessage.asDeadlineMessage(name, due.payload(), due.at());
            DefaultUnitOfWork<DeadlineMessage<Object>> unitOfWork = DefaultUnitOfWork.startAndGet(message);
            config.correlationDataProviders().forEach(unitOfWork::registerCorrelationDataProvider);
            unitOfWork.executeWithResult(() -> {
                config.repository(Checkout.class).send(message, due.scope());
                return null;
            });
        }

        /** Answers the newest intent of {@code step} with its success. */
        void answer(Step step) {
            ActivityIntent intent = intents().stream().filter(i -> i.step() == step).reduce((a, b) -> b).orElseThrow();
            respond(intent);
        }

        /** Answers every open intent with its success, until none is left. */
        void answerAll() {
            for (int rounds = 0; rounds < 20; rounds++) {
                List<ActivityIntent> open = intents().stream()
                        .filter(i -> !answered.contains(i.lease().operationId().value() + "#" + i.lease().attempt()))
                        .toList();
                Object last = events().get(events().size() - 1).getPayload();
                if (last instanceof CheckoutCompletedEvent || last instanceof CheckoutCancelledEvent) {
                    return;
                }
                if (open.isEmpty()) {
                    throw new IllegalStateException("no open intent, and the checkout is not finished: " + last);
                }
                respond(open.get(open.size() - 1));
            }
        }

        private void respond(ActivityIntent intent) {
            answered.add(intent.lease().operationId().value() + "#" + intent.lease().attempt());
            OperationId op = intent.lease().operationId();
            FencingToken token = intent.lease().fencingToken();
            ActivityResultEvent result = switch (intent.step()) {
                case RESERVE_STOCK -> new StockReservationSucceededEvent(id, op, token);
                case AUTHORIZE_PAYMENT -> new PaymentAuthorizationSucceededEvent(id, op, token, "psp-auth-7");
                case SEND_RECEIPT -> new ReceiptDeliverySucceededEvent(id, op, token);
                case CAPTURE_PAYMENT -> new io.durablecheckout.api.activity.PaymentCaptureSucceededEvent(id, op, token,
                        "psp-capture-7", ((io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent) intent).amount());
                case RELEASE_STOCK -> new StockReleaseSucceededEvent(id, op, token);
                case VOID_PAYMENT -> new PaymentVoidSucceededEvent(id, op, token, "psp-void-7");
                case REFUND_PAYMENT -> new PaymentRefundSucceededEvent(id, op, token, "psp-refund-7");
                case SEND_CANCELLATION_NOTICE -> new CancellationNoticeDeliverySucceededEvent(id, op, token);
                case RECONCILE_PAYMENT -> throw new IllegalStateException("the scenarios answer no lookup");
            };
            send(new RecordActivityResultCommand(id, result, now(1)));
        }

        private List<ActivityIntent> intents() {
            List<ActivityIntent> intents = new ArrayList<>();
            for (DomainEventMessage<?> e : events()) {
                if (e.getPayload() instanceof ActivityIntent intent) {
                    intents.add(intent);
                }
            }
            return intents;
        }

        List<DomainEventMessage<?>> events() {
            List<DomainEventMessage<?>> events = new ArrayList<>();
            config.eventStore().readEvents(id.value()).asStream().forEach(events::add);
            return events;
        }

        /** Writes the history as a bundle of the corpus, after checking it walks the paths it is recorded for. */
        void record(String... types) throws Exception {
            Serializer serializer = AxonJson.strictEventSerializer();
            List<DomainEventData<byte[]>> rows = new ArrayList<>();
            for (DomainEventMessage<?> e : events()) {
                SerializedObject<byte[]> payload = serializer.serialize(e.getPayload(), byte[].class);
                SerializedObject<byte[]> metaData = serializer.serialize(e.getMetaData(), byte[].class);
                rows.add(new GenericDomainEventEntry<>(Checkout.TYPE, id.value(), e.getSequenceNumber(),
                        e.getIdentifier(), e.getTimestamp().toString(), payload.getType().getName(),
                        payload.getType().getRevision(), payload.getData(), metaData.getData()));
            }
            StoredHistories.History history = new StoredHistories(null, serializer, EventUpcasters.chain())
                    .history(id.value(), rows);
            List<String> path = history.events().stream().map(HistoryEvent::type).toList();
            assertThat(path).contains(types);
            ReplayReport report = new CheckoutReplayer().replay(history);
            assertThat(report.identical()).as(report.render()).isTrue();
            String last = path.get(path.size() - 1).replace("Event", "");
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(String.join(">", path).getBytes(StandardCharsets.UTF_8));
            HistoryBundle.write(HistoryBundle.export(history, T0),
                    CORPUS.resolve(last + "-" + HexFormat.of().formatHex(digest, 0, 4) + ".json"));
        }

        @Override
        public void close() {
            config.shutdown();
        }
    }

    /**
     * Records every schedule and cancel for {@link RecordedInputs} (as the application's deadline manager does) and
     * keeps the pending ones for the scenario to fire; it never fires one by itself.
     */
    private static final class Deadlines extends ScheduleAndCancelOnly {

        record Scheduled(String id, Instant at, String name, Object payload, ScopeDescriptor scope) {
        }

        private final Map<String, Scheduled> pending = new LinkedHashMap<>();
        private int next;

        Scheduled take(String name) {
            Scheduled found = pending.values().stream().filter(s -> s.name().equals(name)).reduce((a, b) -> b)
                    .orElseThrow(() -> new IllegalStateException("no pending deadline " + name));
            pending.remove(found.id());
            return found;
        }

        @Nonnull
        @Override
        public String schedule(@Nonnull Instant triggerDateTime, @Nonnull String deadlineName, Object messageOrPayload,
                               @Nonnull ScopeDescriptor deadlineScope) {
            String id = "deadline-" + (++next);
            pending.put(id, new Scheduled(id, triggerDateTime, deadlineName, messageOrPayload, deadlineScope));
            RecordedInputs.scheduled(id, triggerDateTime, deadlineName, messageOrPayload, deadlineScope);
            return id;
        }

        @Override
        public void cancelSchedule(@Nonnull String deadlineName, @Nonnull String scheduleId) {
            RecordedInputs.cancelled(deadlineName, scheduleId);
            pending.remove(scheduleId);
        }

    }
}
