package io.durablecheckout.orchestrator.service;

import io.durablecheckout.api.command.RearmOverdueTimersCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A checkout waits on a timer whose row is written in the transaction that decided it, so a lost timer is a bug, not a
 * state. Should one be lost anyway, the checkout would wait for ever, visible but never moving: this sweep finds
 * checkouts whose next deadline (as the read model has it) passed more than {@code grace} ago while no deadline row
 * names them, and has each schedule again what its state still waits for (decision 135). Counted
 * ({@code checkout_timers_rearmed_total}, which should stay 0) and logged, so the bug is seen while the checkout moves.
 */
public class OverdueTimerWatchdog {

    private static final Logger log = LoggerFactory.getLogger(OverdueTimerWatchdog.class);

    /** Over the waiting index (next_deadline, not terminal); a row's data carries its checkout's id. */
    private static final String OVERDUE = "SELECT s.checkout_id FROM checkout_summary s"
            + " WHERE NOT s.terminal AND s.next_deadline < ?"
            + " AND NOT EXISTS (SELECT 1 FROM scheduled_tasks t"
            + " WHERE position(convert_to(s.checkout_id, 'UTF8') IN t.task_data) > 0)"
            + " ORDER BY s.next_deadline LIMIT ?";

    private final JdbcTemplate jdbc;
    private final CommandGateway commands;
    private final Duration grace;
    private final int batch;
    private final Counter rearmed;

    public OverdueTimerWatchdog(JdbcTemplate jdbc, CommandGateway commands, Duration grace, int batch,
                                MeterRegistry meters) {
        this.jdbc = jdbc;
        this.commands = commands;
        this.grace = grace;
        this.batch = batch;
        this.rearmed = Counter.builder("checkout.timers.rearmed")
                .description("Checkouts found waiting past their next deadline with no deadline row, whose timers were"
                        + " scheduled again (a lost timer: should stay 0)")
                .register(meters);
    }

    /** One sweep at {@code now}; returns how many checkouts had their timers scheduled again. */
    public int sweep(Instant now) {
        List<String> overdue = jdbc.queryForList(OVERDUE, String.class, Timestamp.from(now.minus(grace)), batch);
        int done = 0;
        for (String id : overdue) {
            try {
                commands.sendAndWait(new RearmOverdueTimersCommand(new CheckoutId(id), now));
                rearmed.increment();
                done++;
                log.warn("Checkout {} waited more than {} s past its next deadline with no deadline row: its timers"
                        + " are scheduled again (a lost timer; please report it with the checkout's history)", id,
                        grace.toSeconds());
            } catch (RuntimeException e) {
                log.warn("Checkout {} is past its next deadline with no deadline row; scheduling its timers again"
                        + " failed, the next sweep tries again: {}", id, e.toString());
            }
        }
        return done;
    }
}
