package io.durablecheckout.orchestrator.cluster;

import io.durablecheckout.orchestrator.axon.saga.ChangedOnlySagaStore;
import io.durablecheckout.orchestrator.saga.CheckoutSaga;
import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.modelling.saga.repository.SagaStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Carries out the operators' segment requests ({@link SegmentRequests}, decision 137). Every
 * {@code checkout.processing.balance-interval} each node reads the pending requests; the node whose claim the segment
 * is ({@code tokenentry.owner}) asks its processor for Axon's {@code splitSegment} or {@code mergeSegment} and records
 * the request done, or failed after {@value #ATTEMPTS} attempts that did not succeed, with why. A merge takes in the
 * segment's sibling: a node holding the sibling but not the segment releases it, for the holder to claim. A holder that
 * dies leaves the request pending; whoever takes its segment over carries it out (or finds it carried out). After a
 * split or merge of the saga's segments this node's saga cache is emptied: its sagas are now another segment's too.
 */
@Component
public class SegmentRequestRunner extends PeriodicTask {

    static final int ATTEMPTS = 5;
    private static final Logger log = LoggerFactory.getLogger(SegmentRequestRunner.class);

    private final SegmentRequests requests;
    private final JdbcTemplate jdbc;
    private final EventProcessingConfiguration processing;
    private final ObjectProvider<SagaStore<Object>> sagaStore;
    private final String node;

    public SegmentRequestRunner(SegmentRequests requests, JdbcTemplate jdbc, EventProcessingConfiguration processing,
                                ObjectProvider<SagaStore<Object>> sagaStore, ClusterProperties cluster) {
        super("segment-requests", cluster.balanceInterval());
        this.requests = requests;
        this.jdbc = jdbc;
        this.processing = processing;
        this.sagaStore = sagaStore;
        this.node = cluster.nodeId();
    }

    @Override
    void runOnce() {
        for (SegmentRequests.Request r : requests.pending()) {
            Optional<StreamingEventProcessor> found = processing.eventProcessor(r.processor())
                    .filter(p -> p instanceof StreamingEventProcessor && p.isRunning())
                    .map(StreamingEventProcessor.class::cast);
            if (found.isEmpty()) {
                continue; // not run here: a node that runs it carries it out
            }
            carryOut(r, found.get());
        }
    }

    private void carryOut(SegmentRequests.Request r, StreamingEventProcessor processor) {
        Map<Integer, String> owners = new HashMap<>();
        jdbc.query("SELECT segment, owner FROM tokenentry WHERE processorname = ?",
                (org.springframework.jdbc.core.RowCallbackHandler) row -> owners.put(row.getInt(1), row.getString(2)),
                r.processor());
        int[] now = owners.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
        int[] before = SegmentRequests.toArray(r.segmentsBefore());
        switch (SegmentRequests.progress(r.action(), r.segment(), before, now)) {
            case ALREADY_DONE -> {
                if (requests.finish(r.id(), true, "found carried out (its holder stopped before recording it)", now,
                        node)) {
                    forgetSagas(r.processor());
                }
                return;
            }
            case CHANGED -> {
                requests.finish(r.id(), false, "the segments changed since the request: " + r.segmentsBefore()
                        + " then, " + Arrays.toString(now) + " now", now, node);
                return;
            }
            case READY -> {
            }
        }
        boolean holder = node.equals(owners.get(r.segment())) && processor.processingStatus().containsKey(r.segment());
        Integer sibling = SegmentRequests.MERGE.equals(r.action()) ? SegmentRequests.sibling(r.segment(), now) : null;
        if (sibling != null && !holder && node.equals(owners.get(sibling))) {
            // the holder of the segment claims its sibling while it is free; Axon keeps this node from reclaiming it
            log.info("releasing segment {} of {} for the merge of request {}", sibling, r.processor(), r.id());
            processor.releaseSegment(sibling, interval().toMillis() * 3, TimeUnit.MILLISECONDS);
            return;
        }
        if (!holder || (sibling != null && owners.get(sibling) != null && !node.equals(owners.get(sibling)))) {
            return; // another node holds it (or the sibling, until it lets it go): wait
        }
        log.info("{} of segment {} of {} (request {})", r.action(), r.segment(), r.processor(), r.id());
        String failure;
        try {
            boolean ok = (SegmentRequests.SPLIT.equals(r.action()) ? processor.splitSegment(r.segment())
                    : processor.mergeSegment(r.segment())).get(60, TimeUnit.SECONDS);
            if (ok) {
                forgetSagas(r.processor());
                requests.finish(r.id(), true, r.action() + " carried out", requests.segments(r.processor()), node);
                return;
            }
            failure = "Axon declined the " + r.action();
        } catch (ExecutionException e) {
            failure = String.valueOf(e.getCause());
        } catch (TimeoutException e) {
            failure = "no answer from the processor within 60 s";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        log.warn("{} of segment {} of {} (request {}) did not succeed: {}", r.action(), r.segment(), r.processor(),
                r.id(), failure);
        if (r.attempts() + 1 >= ATTEMPTS) {
            requests.finish(r.id(), false, failure + " (" + ATTEMPTS + " attempts)", requests.segments(r.processor()),
                    node);
        } else {
            requests.attempted(r.id(), failure);
        }
    }

    /** The saga's segments changed: what this node cached of the sagas may be another segment's now (§79). */
    private void forgetSagas(String processor) {
        if (CheckoutSaga.PROCESSOR.equals(processor) && sagaStore.getIfAvailable() instanceof ChangedOnlySagaStore s) {
            s.forgetCached();
        }
    }
}
