package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.FaultMatrix;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.tenancy.AdminKeyCommand;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;


import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 48, Build 5 (decision 137): the saga's segment split and merged on a live database through the admin API, two
 * nodes on one PostgreSQL, checkouts submitted the whole time. The split is carried out by the segment's holder, the
 * merge by the holder of one half after the other node let go of its sibling, and a split asked after its holder was
 * killed, by the node that takes the segment over. Every checkout completes, with one authorization,
 * one capture at the provider simulator and its receipt at the mail sink (the fault matrix's judge: nothing lost,
 * nothing repeated).
 */
class LiveSegmentSplitIT {

    static final String SAGA = "CheckoutSagaProcessor";

    @Test
    void theSagaSegmentIsSplitAndMergedUnderLoadByWhoeverHoldsIt() throws Exception {
        try (FaultMatrix.Run r = new FaultMatrix.Run("live-split")) {
            NodeProcess n1 = node(r, "n1"); // first alone: it migrates the schema
            NodeProcess n2 = node(r, "n2");
            r.port.set(n1.port());
            HttpApi api = new HttpApi(n1.port());
            String admin = adminKey(r);
            await().atMost(Duration.ofSeconds(30)).until(() -> sagaSegments(r).equals(List.of(0)));

            // client mistakes: problem+json, nothing recorded
            assertThat(change(api, admin, "no-such-processor", "0", "split").status()).isEqualTo(404);
            assertThat(change(api, admin, SAGA, "7", "split").status()).isEqualTo(404);
            HttpApi.Response lonely = change(api, admin, SAGA, "0", "merge");
            assertThat(lonely.status()).as(lonely.body()).isEqualTo(409);
            assertThat(lonely.header("Content-Type")).startsWith("application/problem+json");
            assertThat(change(api, admin, SAGA, "zero", "split").status()).isEqualTo(400);
            assertThat(api.send("POST", "/api/v1/admin/processors/" + SAGA + "/segments/0/split", admin, Map.of(),
                    "{}").status()).as("no reason").isEqualTo(400);
            assertThat(api.send("POST", "/api/v1/admin/processors/" + SAGA + "/segments/0/split", HttpApi.OPERATOR_KEY,
                    Map.of(), "{\"reason\":\"x\"}").status()).as("not an admin").isEqualTo(403);
            assertThat(r.count("SELECT count(*) FROM segment_requests")).isZero();

            // checkouts in flight the whole time: a client keeping about eight open
            AtomicBoolean submitting = new AtomicBoolean(true);
            r.submissions.add(CompletableFuture.runAsync(() -> {
                while (submitting.get()) {
                    r.submit(new FaultMatrix.Order("tok_approve", false));
                    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50)).until(() ->
                            r.accepted.size() - r.count("SELECT count(*) FROM checkout_summary WHERE terminal") < 8);
                }
            }, r.clients));
            awaitMoreCompleted(r, 5);

            // split: carried out by the holder of segment 0 (the claim may move meanwhile: a saga batch that lost an
            // append race to the other node lets its segment go)
            ownerOf(r, 0);
            JsonNode split = accepted(change(api, admin, SAGA, "0", "split"));
            assertThat(split.path("state").asText()).isEqualTo("pending");
            JsonNode splitDone = awaitFinished(api, admin, split.path("id").asLong());
            assertThat(splitDone.path("state").asText()).as(splitDone.toString()).isEqualTo("done");
            assertThat(splitDone.path("finishedBy").asText()).isIn("n1", "n2");
            assertThat(sagaSegments(r)).containsExactly(0, 1);
            assertThat(r.count("SELECT count(*) FROM audit_log WHERE action = 'segments.split'")).isEqualTo(1);
            awaitMoreCompleted(r, 5);

            // merge: the halves spread over the two nodes first, so the sibling's holder must let it go
            await("the halves on both nodes").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> r.count("SELECT count(DISTINCT owner) FROM tokenentry WHERE processorname = '" + SAGA
                            + "' AND owner IS NOT NULL") == 2);
            JsonNode merge = accepted(change(api, admin, SAGA, "0", "merge"));
            JsonNode mergeDone = awaitFinished(api, admin, merge.path("id").asLong());
            assertThat(mergeDone.path("state").asText()).as(mergeDone.toString()).isEqualTo("done");
            assertThat(sagaSegments(r)).containsExactly(0);
            awaitMoreCompleted(r, 5);

            // the holder killed, then a split asked: its claim is still the dead node's, so the request waits until
            // the survivor takes the segment over (after the claim timeout) and carries it out
            String holder = ownerOf(r, 0);
            NodeProcess dead = holder.equals("n1") ? n1 : n2;
            NodeProcess survivor = dead == n1 ? n2 : n1;
            r.port.set(survivor.port());
            HttpApi survivorApi = new HttpApi(survivor.port());
            long killed = System.nanoTime();
            dead.kill9();
            JsonNode orphan = accepted(change(survivorApi, admin, SAGA, "0", "split"));
            long orphanId = orphan.path("id").asLong();
            JsonNode orphanDone = awaitFinished(survivorApi, admin, orphanId);
            assertThat(orphanDone.path("state").asText()).as(orphanDone.toString()).isEqualTo("done");
            assertThat(orphanDone.path("finishedBy").asText()).isEqualTo(survivor == n1 ? "n1" : "n2");
            assertThat(sagaSegments(r)).containsExactly(0, 1);
            awaitMoreCompleted(r, 5);

            submitting.set(false);
            FaultMatrix.Result result = r.judge("kill -9 the holder, then a split",
                    "saga segment split, merged, split again under load", 1, killed);
            System.out.println("LIVE-SPLIT " + result.row());
            assertThat(result.violations()).as(result.row()).isEmpty();
            assertThat(result.lost()).as("lost").isZero();
            assertThat(result.duplicated()).as("duplicated side effects").isZero();
            assertThat(r.states().values()).as("every checkout completed").allMatch("completed"::equals);
            int checkouts = r.accepted.size();
            assertThat(checkouts).isGreaterThanOrEqualTo(15);
            // counted where the effects happen: one authorization and one capture each at the simulator, a receipt
            String ids = "SELECT checkout_id FROM checkout_summary";
            assertThat(r.count("SELECT count(*) FROM simulator_authorizations")).as("authorizations").isEqualTo(checkouts);
            assertThat(r.count("SELECT count(DISTINCT split_part(operation_id, '/', 1)) FROM simulator_authorizations"
                    + " WHERE split_part(operation_id, '/', 1) IN (" + ids + ")")).isEqualTo(checkouts);
            assertThat(r.count("SELECT coalesce(sum(captures), 0) FROM simulator_authorizations")).as("captures")
                    .isEqualTo(checkouts);
            assertThat(r.count("SELECT count(DISTINCT idempotency_key) FROM mail_sink_messages")).as("receipts")
                    .isEqualTo(checkouts);
        }
    }

    private static NodeProcess node(FaultMatrix.Run r, String name) throws IOException {
        List<String> args = new ArrayList<>(FaultMatrix.NODE_ARGS);
        args.add("--checkout.processing.node-id=" + name);
        args.add("--checkout.deadlines.execution-log=true");
        args.add("--checkout.processing.balance-interval=1s");
        args.add("--checkout.datasource.maximum-pool-size=8");
        args.add("--checkout.processing.processors." + SAGA + ".segments=1");
        NodeProcess p = NodeProcess.start("matrix-" + r.name + "-" + name, r.postgres.jdbcUrl(), args,
                ScaleOutIT.JVM);
        synchronized (r.nodes) {
            r.nodes.add(p);
        }
        return p;
    }

    private static String adminKey(FaultMatrix.Run r) {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int exit = AdminKeyCommand.run(new String[] {AdminKeyCommand.NAME, "--jdbc-url", r.postgres.jdbcUrl(),
                "--jdbc-user", "postgres"}, Map.of(), new PrintStream(printed, true), System.err);
        assertThat(exit).isZero();
        return printed.toString().trim();
    }

    private static HttpApi.Response change(HttpApi api, String admin, String processor, String segment, String action) {
        return api.send("POST", "/api/v1/admin/processors/" + processor + "/segments/" + segment + "/" + action, admin,
                Map.of(), "{\"reason\":\"live-split test\"}");
    }

    private static JsonNode accepted(HttpApi.Response r) {
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        assertThat(r.header("Location")).isEqualTo("/api/v1/admin/segment-requests/" + r.json().path("id").asLong());
        return r.json();
    }

    private static JsonNode awaitFinished(HttpApi api, String admin, long id) {
        JsonNode[] last = new JsonNode[1];
        await("segment request " + id + " finished").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    last[0] = api.send("GET", "/api/v1/admin/segment-requests/" + id, admin, Map.of(), null).json();
                    return !"pending".equals(last[0].path("state").asText());
                });
        return last[0];
    }

    private static List<Integer> sagaSegments(FaultMatrix.Run r) {
        return r.db.queryForList("SELECT segment FROM tokenentry WHERE processorname = ? ORDER BY segment",
                Integer.class, SAGA);
    }

    private static String ownerOf(FaultMatrix.Run r, int segment) {
        String[] owner = new String[1];
        await("segment " + segment + " claimed").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> (owner[0] = r.db.queryForObject("SELECT owner FROM tokenentry WHERE processorname = ? AND"
                        + " segment = ?", String.class, SAGA, segment)) != null);
        return owner[0];
    }

    /** Checkouts keep completing: {@code more} beyond those completed now. */
    private static void awaitMoreCompleted(FaultMatrix.Run r, int more) {
        int now = r.count("SELECT count(*) FROM checkout_summary WHERE state = 'completed'");
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
                r.count("SELECT count(*) FROM checkout_summary WHERE state = 'completed'") >= now + more);
    }
}
