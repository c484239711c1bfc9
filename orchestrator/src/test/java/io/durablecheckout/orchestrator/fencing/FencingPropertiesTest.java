package io.durablecheckout.orchestrator.fencing;

import io.durablecheckout.activities.FencedOperations;
import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.checkout.Checkout;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.messaging.MetaData;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.hamcrest.BaseMatcher;
import org.hamcrest.Description;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random interleavings of the lease protocol: grants (a lease expires and the next owner gets the next token),
 * renewals, writes at the resource and results at the aggregate, by owners old and new, in any order. Whatever the
 * order: the resource never accepts an older token after a newer one, and the aggregate never applies a result or a
 * renewal from anyone but the owner of the lease in force.
 */
class FencingPropertiesTest {

    static EmbeddedPostgresServer postgres;
    static FencedOperations resource;
    static JdbcTemplate jdbc;
    static TransactionTemplate tx;

    @BeforeContainer
    static void database() throws Exception {
        Path target = Path.of("target");
        Files.createDirectories(target);
        postgres = EmbeddedPostgresServer.start(Files.createTempDirectory(target.toAbsolutePath(), "props-pg-"), 0);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(postgres.jdbcUrl());
        ds.setUser("postgres");
        jdbc = new JdbcTemplate(ds);
        tx = new TransactionTemplate(new DataSourceTransactionManager(ds));
        // the shape every resource's operation table shares; the SQL under test is the production FencedOperations
        jdbc.execute("CREATE TABLE fenced_ops (operation_id TEXT PRIMARY KEY, kind TEXT NOT NULL, "
                + "fencing_token BIGINT NOT NULL, status TEXT NOT NULL, value TEXT, updated_at TIMESTAMPTZ DEFAULT now())");
        resource = new FencedOperations(new NamedParameterJdbcTemplate(ds), "fenced_ops");
    }

    @AfterContainer
    static void stop() throws Exception {
        postgres.close();
    }

    // ------------------------------------------------------------------------------------------- the resource

    /** An owner (by token) tries to write its value; owners come and go in any order. */
    record Write(int owner) {
    }

    @Provide
    Arbitrary<List<Write>> writes() {
        return Arbitraries.integers().between(1, 6).map(Write::new).list().ofMinSize(1).ofMaxSize(25);
    }

    @Property(tries = 60) // a fresh sample each build; 60 keeps the suite inside its time budget
    void theResourceNeverAcceptsAnOlderTokenAfterANewerOne(@ForAll("writes") List<Write> writes) {
        String op = "op-" + UUID.randomUUID();
        AtomicLong newestAccepted = new AtomicLong(0);
        for (Write w : writes) {
            boolean accepted = Boolean.TRUE.equals(tx.execute(status -> {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("operation_id", op);
                row.put("kind", "TEST");
                row.put("fencing_token", (long) w.owner());
                FencedOperations.Claim claim = resource.claim(row);
                if (claim.stale()) {
                    return false;
                }
                jdbc.update("UPDATE fenced_ops SET value = ? WHERE operation_id = ?", "owner-" + w.owner(), op);
                return true;
            }));
            if (w.owner() < newestAccepted.get()) {
                assertThat(accepted).as("token %s after %s", w.owner(), newestAccepted.get()).isFalse();
            } else {
                assertThat(accepted).as("token %s, newest so far %s", w.owner(), newestAccepted.get()).isTrue();
                newestAccepted.set(w.owner());
            }
        }
        Map<String, Object> row = jdbc.queryForMap("SELECT fencing_token, value FROM fenced_ops WHERE operation_id = ?", op);
        assertThat(((Number) row.get("fencing_token")).longValue()).isEqualTo(newestAccepted.get());
        assertThat(row.get("value")).isEqualTo("owner-" + newestAccepted.get());
    }

    // ------------------------------------------------------------------------------------------ the aggregate

    static final CheckoutId ID = new CheckoutId("chk-prop");
    static final OperationId OP = OperationId.of(ID, Step.RESERVE_STOCK);
    static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    static final Duration LEASE = Duration.ofSeconds(10);
    static final WorkflowPolicy POLICY = new WorkflowPolicy(LEASE, LEASE, Duration.ofSeconds(1), Duration.ofSeconds(5),
            1000, Duration.ofSeconds(1), Duration.ofSeconds(5), 5);

    enum Kind { EXPIRE_AND_GRANT, RENEW, RESULT }

    /** {@code owner} picks one of the owners granted so far (modulo their number). */
    record Action(Kind kind, int owner) {
    }

    @Provide
    Arbitrary<List<Action>> protocol() {
        Arbitrary<Action> action = Arbitraries.integers().between(0, 2).flatMap(k -> Arbitraries.integers()
                .between(0, 20).map(o -> new Action(Kind.values()[k], o)));
        return action.list().ofMinSize(1).ofMaxSize(20);
    }

    @Property(tries = 80) // a fresh sample each build; 80 keeps the suite inside its time budget
    void theAggregateAppliesOnlyTheCurrentOwnersResultAndRenewal(@ForAll("protocol") List<Action> actions) {
        List<EventMessage<?>> history = new ArrayList<>();
        history.add(event(new CheckoutCreatedEvent(ID, new TenantId("t"), List.of(new LineItem(new Sku("S"), 1)),
                new Money(100, "EUR"), "tok_approve", "a@example.com", "k", "f", T0, POLICY.recorded()), MetaData.emptyInstance()));
        int granted = 1;
        Instant now = T0;
        Lease current = new Lease(OP, 1, new FencingToken(1), T0.plus(LEASE));
        history.add(event(new StockReservationRequestedEvent(ID, new TenantId("t"),
                List.of(new LineItem(new Sku("S"), 1)), current), MetaData.with(Deadlines.LEASE_DEADLINE_ID, "d1")));
        boolean done = false;

        for (Action a : actions) {
            now = now.plusSeconds(1);
            FencingToken presented = new FencingToken(1 + (a.owner() % granted));
            switch (a.kind()) {
                case EXPIRE_AND_GRANT -> {
                    if (done) {
                        continue;
                    }
                    // the lease deadline fired with nothing reported: the next owner gets the next token
                    history.add(event(new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, current), MetaData.emptyInstance()));
                    granted++;
                    current = new Lease(OP, granted, new FencingToken(granted), now.plus(LEASE));
                    history.add(event(new StockReservationRequestedEvent(ID, new TenantId("t"),
                            List.of(new LineItem(new Sku("S"), 1)), current), MetaData.with(Deadlines.LEASE_DEADLINE_ID, "d" + granted)));
                }
                case RENEW -> {
                    List<EventMessage<?>> produced = run(history, new RenewLeaseCommand(ID,
                            new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, OP, presented), now));
                    boolean owner = !done && presented.equals(current.fencingToken());
                    if (owner) {
                        assertThat(produced).hasSize(1);
                        assertThat(produced.get(0).getPayload()).isInstanceOf(ActivityLeaseRenewedEvent.class);
                        current = ((ActivityLeaseRenewedEvent) produced.get(0).getPayload()).lease();
                    } else {
                        assertThat(produced).extracting(EventMessage::getPayload)
                                .allSatisfy(p -> assertThat(p).isInstanceOf(ActivityResultRejectedEvent.class));
                    }
                    history.addAll(produced);
                }
                case RESULT -> {
                    List<EventMessage<?>> produced = run(history, new RecordActivityResultCommand(ID,
                            new StockReservationSucceededEvent(ID, OP, presented), now));
                    boolean applied = produced.stream().anyMatch(e -> e.getPayload() instanceof StockReservedEvent);
                    if (presented.equals(current.fencingToken()) && !done) {
                        assertThat(applied).as("the current owner's result is applied").isTrue();
                        done = true;
                    } else {
                        assertThat(applied).as("a stale or repeated result is never applied").isFalse();
                        if (!presented.equals(current.fencingToken())) {
                            assertThat(produced.stream().map(e -> (Object) e.getPayload()).toList())
                                    .containsExactly(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, OP,
                                            presented, current.fencingToken()));
                        }
                    }
                    history.addAll(produced);
                }
            }
        }
        assertThat(history.stream().filter(e -> e.getPayload() instanceof StockReservedEvent)).hasSizeLessThanOrEqualTo(1);
    }

    private static List<EventMessage<?>> run(List<EventMessage<?>> history, Object command) {
        AggregateTestFixture<Checkout> fixture = new AggregateTestFixture<>(Checkout.class);
        fixture.registerInjectableResource(POLICY);
        List<EventMessage<?>> produced = new ArrayList<>();
        fixture.given(history.stream().map(m -> (Object) m).toList()).when(command)
                .expectSuccessfulHandlerExecution()
                .expectEventsMatching(new BaseMatcher<List<EventMessage<?>>>() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public boolean matches(Object actual) {
                        produced.addAll((List<EventMessage<?>>) actual);
                        return true;
                    }

                    @Override
                    public void describeTo(Description description) {
                        description.appendText("any events (captured)");
                    }
                });
        return produced;
    }

    private static EventMessage<?> event(Object payload, MetaData metaData) {
        return new GenericDomainEventMessage<>(Checkout.TYPE, ID.value(), 0, payload, metaData);
    }
}
