package io.durablecheckout.orchestrator.config;

import io.durablecheckout.activities.inventory.InventoryWorker;
import io.durablecheckout.activities.payments.PaymentsWorker;
import io.durablecheckout.activities.receipts.ReceiptsWorker;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.IntentProgress;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventhandling.WrappedToken;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link IntentProgress} read from the token store: the intent's global index (its checkout's event at that sequence
 * number) against the position of every segment of the step's processor, the positions the dashboard's processors
 * page shows. Conservative: passed only when every segment is past the intent (a segment that does not own it has
 * passed it too once it is further), never for a segment without a token or a processor without segments.
 */
public final class ProcessorIntentProgress implements IntentProgress {

    private final JdbcTemplate jdbc;
    private final Serializer serializer;

    public ProcessorIntentProgress(JdbcTemplate jdbc, Serializer serializer) {
        this.jdbc = jdbc;
        this.serializer = serializer;
    }

    /** The processing group whose workers handle {@code step}'s intents (the activities' own names). */
    public static String processorOf(Step step) {
        return switch (step) {
            case RESERVE_STOCK, RELEASE_STOCK -> InventoryWorker.PROCESSING_GROUP;
            case AUTHORIZE_PAYMENT, RECONCILE_PAYMENT, VOID_PAYMENT, REFUND_PAYMENT -> PaymentsWorker.PROCESSING_GROUP;
            case SEND_RECEIPT, SEND_CANCELLATION_NOTICE -> ReceiptsWorker.PROCESSING_GROUP;
        };
    }

    @Override
    public boolean passed(CheckoutId checkoutId, Step step, long sequenceNumber) {
        List<Long> intent = jdbc.queryForList("SELECT globalindex FROM domainevententry "
                + "WHERE aggregateidentifier = ? AND sequencenumber = ?", Long.class, checkoutId.value(), sequenceNumber);
        if (intent.isEmpty()) {
            return false;
        }
        long index = intent.get(0);
        List<TrackingToken> segments = new ArrayList<>();
        boolean[] unreadable = {false};
        jdbc.query("SELECT token, tokentype FROM tokenentry WHERE processorname = ?", rs -> {
            byte[] token = rs.getBytes(1);
            String type = rs.getString(2);
            if (token == null || type == null) {
                unreadable[0] = true;
            } else {
                segments.add(serializer.deserialize(new SimpleSerializedObject<>(token, byte[].class, type, null)));
            }
        }, processorOf(step));
        return !unreadable[0] && !segments.isEmpty() && segments.stream().allMatch(t -> past(t, index));
    }

    /** The segment's token has seen event {@code index} (not waiting for it in a gap). */
    static boolean past(TrackingToken token, long index) {
        TrackingToken t = WrappedToken.unwrapLowerBound(token);
        if (t instanceof GapAwareTrackingToken g) {
            return g.getIndex() >= index && !g.getGaps().contains(index);
        }
        return t != null && t.position().orElse(-1) >= index;
    }
}
