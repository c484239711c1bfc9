package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.orchestrator.checkout.IllegalCheckoutTransitionException;
import org.axonframework.commandhandling.CommandExecutionException;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.eventhandling.AbstractEventBus;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an operator action would issue, found by running it for real and throwing it away: the command goes to the
 * Checkout aggregate inside a unit of work and a database transaction that are both rolled back, and the events the
 * aggregate applied are read from the unit of work before the rollback. So the preview is the aggregate's own decision
 * (operation ids, attempts, fencing tokens, or the rule that refuses it), not a second copy of its rules.
 * <p>
 * Nothing escapes: the events are only queued in the unit of work (the event store appends them at the root's
 * commit, which never comes), and deadlines are scheduled through db-scheduler on the transaction-bound connection,
 * which is rolled back. DashboardIT checks that a preview leaves the event store and scheduled_tasks as they were.
 */
@Component
public class RepairPreview {

    private final CommandGateway commands;
    private final EventStore eventStore;
    private final TransactionTemplate transactions;
    private final Method queuedMessages;

    public RepairPreview(CommandGateway commands, EventStore eventStore, TransactionTemplate transactions) {
        this.commands = commands;
        this.eventStore = eventStore;
        this.transactions = transactions;
        Method m = null;
        if (eventStore instanceof AbstractEventBus) {
            try {
                // The events a unit of work has staged: protected in Axon, read here rather than re-implemented.
                m = AbstractEventBus.class.getDeclaredMethod("queuedMessages");
                m.setAccessible(true);
            } catch (ReflectiveOperationException | RuntimeException e) {
                m = null;
            }
        }
        this.queuedMessages = m;
    }

    /** One event the action would append; {@code operationId} etc. set for intents (work it would issue). */
    public record Issued(String type, Object payload, String step, String operationId, Integer attempt,
                         Long fencingToken) {
    }

    /** @param refusal the rule's message when the aggregate would refuse the action (then nothing is issued) */
    public record Preview(boolean allowed, String refusal, String rule, List<Issued> events, List<String> operationIds) {
    }

    public Preview dryRun(CommandMessage<?> command) {
        if (queuedMessages == null) {
            return new Preview(false, "preview unavailable: the event store is not Axon's embedded event bus", null,
                    List.of(), List.of());
        }
        return transactions.execute(status -> {
            status.setRollbackOnly();
            UnitOfWork<?> root = DefaultUnitOfWork.startAndGet(null);
            try {
                commands.sendAndWait(command);
                List<Issued> issued = new ArrayList<>();
                List<String> operationIds = new ArrayList<>();
                for (EventMessage<?> m : staged()) {
                    Object p = m.getPayload();
                    if (p instanceof ActivityIntent intent) {
                        issued.add(new Issued(m.getPayloadType().getSimpleName(), p, intent.step().slug(),
                                intent.lease().operationId().value(), intent.lease().attempt(),
                                intent.lease().fencingToken().value()));
                        operationIds.add(intent.lease().operationId().value());
                    } else {
                        issued.add(new Issued(m.getPayloadType().getSimpleName(), p, null, null, null, null));
                    }
                }
                return new Preview(true, null, null, issued, operationIds);
            } catch (CommandExecutionException e) {
                if (e.getCause() instanceof IllegalCheckoutTransitionException t) {
                    return new Preview(false, t.getMessage(), t.rule(), List.of(), List.of());
                }
                return new Preview(false, String.valueOf(e.getMessage()), null, List.of(), List.of());
            } catch (IllegalCheckoutTransitionException t) {
                return new Preview(false, t.getMessage(), t.rule(), List.of(), List.of());
            } finally {
                root.rollback();
            }
        });
    }

    @SuppressWarnings("unchecked")
    private List<EventMessage<?>> staged() {
        try {
            return (List<EventMessage<?>>) queuedMessages.invoke(eventStore);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read the staged events of the preview", e);
        }
    }

    static Map<String, Object> describe(Preview p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("allowed", p.allowed());
        m.put("refusal", p.refusal());
        m.put("events", p.events());
        m.put("operationIds", p.operationIds());
        return m;
    }
}
