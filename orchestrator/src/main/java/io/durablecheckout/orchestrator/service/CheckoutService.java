package io.durablecheckout.orchestrator.service;

import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.api.privacy.PersonalData;

import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.query.FindUnknownSkusQuery;
import io.durablecheckout.api.query.UnknownSkus;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryRepository;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.readmodel.CheckoutViewFolder;
import io.durablecheckout.orchestrator.tenancy.Caller;
import io.durablecheckout.orchestrator.admission.Admission;
import io.durablecheckout.orchestrator.deadletter.ParkedEvents;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.ObjectProvider;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.responsetypes.ResponseTypes;
import org.axonframework.queryhandling.QueryGateway;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import io.durablecheckout.api.values.CaptureMode;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The entry point the HTTP controllers, the dashboard and the benchmark harness use to submit and read checkouts.
 */
@Service
public class CheckoutService {

    private final CommandGateway commands;
    private final QueryGateway queries;
    private final EventStore eventStore;
    private final CheckoutSummaryRepository summaries;
    private final Clock clock;
    private final ObjectProvider<ParkedEvents> parkedEvents;
    private final Admission admission;
    private final PersonalData vault;
    private final TransactionManager transactions;
    private final io.durablecheckout.orchestrator.tenancy.MerchantProfiles merchants;
    private final CheckoutIds ids;
    /** Local command bus: the checks, the key's registration and the first events commit together (see submit). */
    private final boolean oneTransaction;

    public CheckoutService(CommandGateway commands, QueryGateway queries, EventStore eventStore,
                           CheckoutSummaryRepository summaries, Clock clock, ObjectProvider<ParkedEvents> parkedEvents,
                           PersonalData vault, Admission admission, TransactionManager transactions,
                           CheckoutIds ids, @Value("${axon.axonserver.enabled:false}") boolean axonServer,
                           io.durablecheckout.orchestrator.tenancy.MerchantProfiles merchants) {
        this.ids = ids;
        this.transactions = transactions;
        this.merchants = merchants;
        this.oneTransaction = !axonServer;
        this.vault = vault;
        this.admission = admission;
        this.commands = commands;
        this.queries = queries;
        this.eventStore = eventStore;
        this.summaries = summaries;
        this.clock = clock;
        this.parkedEvents = parkedEvents;
    }

    public record Submitted(CheckoutId checkoutId, boolean replayed) {
    }

    /**
     * Starts a checkout once per (tenant, Idempotency-Key): the id is derived from both (keyed, {@link CheckoutIds}),
     * so a retry addresses the same aggregate and the event store's uniqueness decides, atomically, which request
     * created it. A checkout accepted under the old, unkeyed id is found first and answered as a replay.
     */
    public Submitted submit(TenantId tenant, String idempotencyKey, CheckoutRequest request) {
        CheckoutRequestValidator.requireIdempotencyKey(idempotencyKey);
        CheckoutRequestValidator.Valid valid = CheckoutRequestValidator.validate(request, idempotencyKey);
        CheckoutId id = ids.idFor(tenant, idempotencyKey);
        String canonical = canonical(valid);
        try {
            admission.check(tenant);
        } catch (RuntimeException refused) {
            // over its share: a retry of an accepted request is still answered, by reads alone; new work is refused
            // before any transaction (under a flood, most submissions end here)
            return replayOf(id, canonical)
                    .or(() -> replayOf(CheckoutIds.legacyIdFor(tenant, idempotencyKey), canonical))
                    .orElseThrow(() -> refused);
        }
        if (!oneTransaction) {
            // The command is handled elsewhere (Axon Server) and commits on its own: the key's registration must be
            // committed before any event sealed under it exists.
            return submitSteps(tenant, idempotencyKey, valid, id, canonical);
        }
        // One unit of work and transaction for the replay check, the SKU query, the key's registration and the
        // Checkout's first events (the command's unit of work joins it, as a saga's command joins its batch): one
        // transaction per submission instead of five, and no registration without its checkout.
        UnitOfWork<?> unitOfWork = DefaultUnitOfWork.startAndGet(null);
        try {
            unitOfWork.attachTransaction(transactions);
            Submitted submitted = submitSteps(tenant, idempotencyKey, valid, id, canonical);
            if (submitted.replayed()) {
                unitOfWork.rollback(); // a replay writes nothing (the registration of a checkout older than keys)
            } else {
                unitOfWork.commit();
            }
            return submitted;
        } catch (RuntimeException e) {
            if (unitOfWork.phase() == UnitOfWork.Phase.STARTED) {
                unitOfWork.rollback(e); // a failed commit rolled itself back
            }
            if (e instanceof ApiProblemException) {
                throw e;
            }
            // A concurrent request with the same key won the race (its first events took the sequence): answer as
            // for a replay.
            return replayOf(id, canonical).orElseThrow(() -> e);
        }
    }

    private Submitted submitSteps(TenantId tenant, String idempotencyKey, CheckoutRequestValidator.Valid valid,
                                  CheckoutId id, String canonical) {
        // In the submission's transaction the key's registration (one statement, rolled back with a refusal) says
        // whether an earlier request registered this id: only then is the history read. With Axon Server the
        // registration commits on its own, so there the history is read first and a refusal registers nothing.
        PersonalData.KeyRegistration key = oneTransaction ? vault.register(id.value()) : null;
        if (key == null || !key.isNew()) {
            Optional<Submitted> replay = replayOf(id, canonical);
            if (replay.isPresent()) {
                return replay.get();
            }
        }
        // Accepted before checkout ids were keyed (decision 95): that checkout, under its old id. None is made any
        // more, so this read cannot race with a creation; one indexed read that finds nothing for a new checkout.
        Optional<Submitted> accepted = replayOf(CheckoutIds.legacyIdFor(tenant, idempotencyKey), canonical);
        if (accepted.isPresent()) {
            return accepted.get();
        }
        try {
            admission.admit(tenant); // new work only: a retry of an accepted request was answered above
            rejectUnknownSkus(tenant, valid.items());
        } catch (RuntimeException refused) {
            // a checkout made before keys were registered has none: its retry is still answered, whatever the load
            Optional<Submitted> replay = key != null && key.isNew() ? replayOf(id, canonical) : Optional.empty();
            return replay.orElseThrow(() -> refused);
        }
        // Personal data enters the event store only sealed under the checkout's own key (crypto-shredding).
        PersonalData.SealedCheckout sealed = key != null
                ? vault.sealCheckout(key, valid.paymentToken(), valid.customerEmail(), canonical)
                : vault.sealCheckout(id.value(), valid.paymentToken(), valid.customerEmail(), canonical);
        try {
            commands.sendAndWait(new StartCheckoutCommand(id, tenant, valid.items(), valid.amount(),
                    sealed.paymentToken(), sealed.customerEmail(), idempotencyKey, sealed.fingerprint(), clock.instant(),
                    merchants.withMerchant(tenant, valid.receipt()), valid.capture()));
            return new Submitted(id, false);
        } catch (RuntimeException e) {
            if (oneTransaction) {
                throw e; // the caller rolls back first, then looks
            }
            // A concurrent request with the same key won the race: answer as for a replay.
            return replayOf(id, canonical).orElseThrow(() -> e);
        }
    }

    private Optional<Submitted> replayOf(CheckoutId id, String canonical) {
        DomainEventStream stream = eventStore.readEvents(id.value());
        if (!stream.hasNext()) {
            return Optional.empty();
        }
        CheckoutCreatedEvent created = (CheckoutCreatedEvent) stream.next().getPayload();
        String fingerprint = created.requestFingerprint().startsWith("hmac:")
                ? vault.fingerprint(id.value(), canonical).orElseThrow(() -> new ApiProblemException(HttpStatus.CONFLICT,
                        "personal-data-erased", "Personal data erased", "The checkout made with this Idempotency-Key "
                        + "had its personal data erased, so a retry cannot be matched; use a new key"))
                : sha256(canonical); // checkouts from before personal data was sealed
        if (!created.requestFingerprint().equals(fingerprint)) {
            throw new ApiProblemException(HttpStatus.UNPROCESSABLE_CONTENT, "idempotency-key-reused",
                    "Idempotency-Key reused", "This Idempotency-Key was already used for a different request (checkout "
                    + id + "); use a new key for a new checkout");
        }
        return Optional.of(new Submitted(id, true));
    }

    private void rejectUnknownSkus(TenantId tenant, List<LineItem> items) {
        List<Sku> skus = items.stream().map(LineItem::sku).toList();
        UnknownSkus unknown;
        try {
            unknown = queries.query(new FindUnknownSkusQuery(tenant, skus), ResponseTypes.instanceOf(UnknownSkus.class))
                    .get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking SKUs", e);
        } catch (ExecutionException | TimeoutException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new ApiProblemException(HttpStatus.SERVICE_UNAVAILABLE, "service-unavailable", "Service unavailable",
                    "The inventory service did not answer in time; retry with the same Idempotency-Key");
        }
        if (!unknown.skus().isEmpty()) {
            List<String> names = unknown.skus().stream().map(Sku::value).toList();
            throw new ApiProblemException(HttpStatus.UNPROCESSABLE_CONTENT, "unknown-sku", "Unknown SKU",
                    "Not in this tenant's catalogue: " + String.join(", ", names),
                    names.stream().map(s -> "items: unknown sku " + s).toList());
        }
    }

    /** The checkout as the read model has it, or folded from the event store while the read model catches up. */
    private static final tools.jackson.databind.json.JsonMapper TREES = tools.jackson.databind.json.JsonMapper.builder().build();

    /**
     * An event payload as callers see it in a history: every sealed field ({@link PersonalData}) opened, or
     * shown as {@value PersonalData#ERASED} once the checkout's key is deleted. Events without sealed fields
     * pass unchanged.
     */
    public Object revealedPayload(String checkoutId, Object payload) {
        tools.jackson.databind.JsonNode tree = TREES.valueToTree(payload);
        if (!(tree instanceof tools.jackson.databind.node.ObjectNode object)) return payload;
        boolean changed = false;
        for (java.util.Map.Entry<String, tools.jackson.databind.JsonNode> field : object.properties()) {
            if (field.getValue().isString() && PersonalData.isSealed(field.getValue().asString())) {
                String open = vault.reveal(checkoutId, field.getKey(), field.getValue().asString());
                // the token charges the customer's card: nobody reading a history needs more than its tail
                field.setValue(tools.jackson.databind.node.StringNode.valueOf(
                        PersonalData.PAYMENT_TOKEN.equals(field.getKey()) ? masked(open) : open));
                changed = true;
            } else if (PersonalData.PAYMENT_TOKEN.equals(field.getKey()) && field.getValue().isString()) {
                field.setValue(tools.jackson.databind.node.StringNode.valueOf(masked(field.getValue().asString())));
                changed = true;
            }
        }
        return changed ? object : payload;
    }

    /** A payment token as histories show it: its last four characters, enough to tell two apart. */
    static String masked(String token) {
        if (token == null || PersonalData.ERASED.equals(token)) return token;
        return token.length() <= 8 ? "****" : "****" + token.substring(token.length() - 4);
    }

    /** The view as callers see it: the e-mail opened, or shown as erased. */
    private CheckoutView revealed(CheckoutView view) {
        if (view != null && PersonalData.isSealed(view.customerEmail)) {
            view.customerEmail = vault.reveal(view.checkoutId, PersonalData.EMAIL, view.customerEmail);
        }
        return view;
    }

    public Optional<CheckoutView> find(Caller caller, String checkoutId) {
        return findSealed(caller, checkoutId).map(this::revealed);
    }

    private Optional<CheckoutView> findSealed(Caller caller, String checkoutId) {
        Optional<CheckoutView> view = caller.isOperator()
                ? summaries.findAnyTenant(checkoutId)
                : summaries.find(caller.tenantId(), checkoutId);
        // The read model catches up on a tick (lists may lag); a read by id is current: it folds, onto the row, the
        // events the row has not reached yet (none, or the few of the last tick: an index range read).
        CheckoutView folded = view.orElse(null);
        for (DomainEventMessage<?> m : history(checkoutId, folded == null ? 0 : folded.version + 1)) {
            folded = CheckoutViewFolder.fold(folded, (CheckoutEvent) m.getPayload(), m.getSequenceNumber(),
                    m.getTimestamp());
        }
        if (folded == null || (!caller.isOperator() && !caller.tenantId().equals(folded.tenantId))) {
            return Optional.empty();
        }
        return Optional.of(withParked(List.of(folded)).get(0));
    }

    public List<CheckoutView> list(Caller caller, String state, boolean waitingOnly, int limit) {
        return withParked(summaries.list(caller.isOperator() ? null : caller.tenantId(), state, waitingOnly, limit)
                .stream().map(this::revealed).toList());
    }

    /**
     * Marks checkouts with parked events as stuck, with the reason: a parked event waits for an operator, whatever
     * the read model (which may itself be the processor that parked it) says the checkout is waiting for.
     */
    private List<CheckoutView> withParked(List<CheckoutView> views) {
        ParkedEvents parked = parkedEvents.getIfAvailable();
        if (parked == null || views.isEmpty()) {
            return views;
        }
        Map<String, List<ParkedEvents.Sequence>> byCheckout =
                parked.forCheckouts(views.stream().map(v -> v.checkoutId).toList());
        for (CheckoutView v : views) {
            List<ParkedEvents.Sequence> sequences = byCheckout.get(v.checkoutId);
            if (sequences == null) {
                continue;
            }
            v.parked = sequences.stream().map(s -> new CheckoutView.Parked(s.processor(), s.parked(), s.eventType(),
                    s.cause(), s.since())).toList();
            ParkedEvents.Sequence first = sequences.get(0);
            CheckoutView.Waiting was = v.waiting;
            v.waiting = new CheckoutView.Waiting(
                    "stuck: the " + first.processor() + " processor parked " + first.eventType() + " ("
                            + first.cause() + "); this checkout's later events there wait behind it",
                    was == null ? null : was.nextDeadline(),
                    "an operator fixes the cause and retries (POST /api/v1/operator/dead-letters/" + first.processor()
                            + "/" + v.checkoutId + "/retry) or evicts the parked events"
                            + (was == null || was.onDeadline() == null ? "" : "; meanwhile at the deadline: "
                            + was.onDeadline()),
                    was == null ? null : was.known(), was == null ? null : was.unknown());
        }
        return views;
    }

    /** The checkout's own event stream, in order; empty if it does not exist or belongs to another tenant. */
    public List<DomainEventMessage<?>> history(Caller caller, String checkoutId) {
        List<DomainEventMessage<?>> events = history(checkoutId, 0);
        if (events.isEmpty()) {
            return events;
        }
        CheckoutCreatedEvent created = (CheckoutCreatedEvent) events.get(0).getPayload();
        if (!caller.isOperator() && !created.tenantId().value().equals(caller.tenantId())) {
            return List.of();
        }
        return events;
    }

    private List<DomainEventMessage<?>> history(String checkoutId, long fromSequence) {
        List<DomainEventMessage<?>> events = new ArrayList<>();
        eventStore.readEvents(checkoutId, fromSequence).asStream().forEach(events::add);
        return events;
    }

    static String canonical(CheckoutRequestValidator.Valid v) {
        StringBuilder canonical = new StringBuilder();
        v.items().forEach(i -> canonical.append(i.sku().value()).append('\u0000').append(i.quantity()).append('\n'));
        canonical.append(v.amount().minor()).append(' ').append(v.amount().currency()).append('\n')
                .append(v.paymentToken()).append('\n').append(v.customerEmail())
                .append(ReceiptFields.canonical(v.receipt()))
                // only when not the default, so a request from before capture existed keeps its fingerprint
                .append(v.capture() == CaptureMode.DEFERRED ? "\ncapture=deferred" : "");
        return canonical.toString();
    }

    private static String sha256(String canonical) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
