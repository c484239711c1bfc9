package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bundle's format: this code writes format 2, in the product's one printed dialect (plain ids, ISO-8601 durations
 * and instants, no exponents), and still reads format 1: every bundle of the corpus (all written in format 1) replays
 * as it is, and again after being written in format 2 and read back.
 */
public class BundleFormatTest {

    /** A value object in the stored shape, as it would print. */
    static final Pattern VALUE_OBJECT = Pattern.compile("\\{\\s*\"value\"\\s*:");
    /** A number with an exponent (3E+1, 1.0E10) standing on its own in text (not part of a word or an id). */
    static final Pattern EXPONENT = Pattern.compile("(?<![\\w:.\\-])[0-9]+(\\.[0-9]+)?[eE][+-]?[0-9]+(?![\\w\\-])");

    private static String readFormat(Path file) {
        try {
            return new ObjectMapper().readTree(file.toFile()).path("format").asText();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @TestFactory
    Stream<DynamicTest> every_corpus_bundle_of_format_1_replays_and_again_after_a_round_trip_through_format_2()
            throws Exception {
        List<Path> bundles = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("src", "test", "resources", ReplayCorpusTest.CORPUS))) {
            files.filter(f -> f.toString().endsWith(".json")).sorted().forEach(bundles::add);
        }
        // the corpus's format-1 bundles (recorded before format 2); later recordings are format 2 already
        bundles.removeIf(f -> !readFormat(f).equals(HistoryBundle.FORMAT_1));
        assertThat(bundles).isNotEmpty();
        return bundles.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            String old = Files.readString(file);
            assertThat(new ObjectMapper().readTree(old).path("format").asText()).isEqualTo(HistoryBundle.FORMAT_1);
            StoredHistories.History v1 = HistoryBundle.read(file);
            ReplayReport first = new CheckoutReplayer().replay(v1);
            assertThat(first.verdict()).as(first.render()).isEqualTo(ReplayReport.Verdict.IDENTICAL);

            String v2 = write(HistoryBundle.export(v1, Instant.parse("2026-01-01T10:00:00Z")));
            assertOneJsonDialect(v2);
            assertThat(new ObjectMapper().readTree(v2).path("format").asText()).isEqualTo(HistoryBundle.FORMAT);
            ReplayReport again = new CheckoutReplayer().replay(HistoryBundle.read(
                    new ByteArrayInputStream(v2.getBytes(StandardCharsets.UTF_8))));
            assertThat(again.verdict()).as(again.render()).isEqualTo(ReplayReport.Verdict.IDENTICAL);
            assertThat(again.timeline()).isEqualTo(first.timeline());
            assertOneTextDialect(again.render());
        }));
    }

    @Test
    void format_2_prints_the_policy_in_iso_8601_and_ids_as_strings() throws Exception {
        StoredHistories.History history = ReplayAssertions.read(ReplayCorpusTest.CORPUS
                + "/CheckoutCompleted-05c21a32.json");
        JsonNode bundle = new ObjectMapper().readTree(write(HistoryBundle.export(history, Instant.EPOCH)));
        assertThat(bundle.path("policy").path("leaseDuration").asText()).isEqualTo("PT10S");
        assertThat(bundle.path("policy").path("retryMaxDelay").asText()).isEqualTo("PT30S");
        JsonNode created = bundle.path("events").get(0);
        assertThat(created.path("payload").path("checkoutId").asText()).isEqualTo("co_corpus-lease-expiry");
        assertThat(created.path("payload").path("items").get(0).path("sku").asText()).isEqualTo("SKU-0001");
        assertThat(created.path("payload").path("policy").path("reconciliationMaxDelay").asText()).isEqualTo("PT5M");
        assertThat(created.path("payload").path("createdAt").asText()).isEqualTo("2026-01-01T10:00:00Z");
        assertThat(created.path("payloadRevision").asText()).isEqualTo("4"); // read through the upcasters
        JsonNode input = created.path("metaData").path(RecordedInputs.INPUT).path("payload");
        assertThat(input.path("checkoutId").asText()).isEqualTo("co_corpus-lease-expiry");
        assertThat(created.path("payload").path("customerEmail").asText()).isEqualTo(HistoryBundle.REDACTED);
    }

    @Test
    void the_checks_see_the_stored_shape_and_exponents() {
        assertThat(VALUE_OBJECT.matcher("{\"checkoutId\" : {\n  \"value\" : \"co_1\"}}").find()).isTrue();
        assertThat(EXPONENT.matcher("\"leaseDuration\": 3E+1,").find()).isTrue();
        assertThat(EXPONENT.matcher("policy {leaseDuration=1.0E10}").find()).isTrue();
        assertThat(EXPONENT.matcher("\"id\" : \"5eab7769-b647-420a-837a-dd9ddf4a7224\" hmac:v1:572750e75").find())
                .isFalse();
        assertThat(EXPONENT.matcher("\"leaseDuration\" : \"PT30S\"").find()).isFalse();
        assertThatThrownBy(() -> assertOneJsonDialect("{\"leaseDuration\" : 3E+1}")).isInstanceOf(AssertionError.class);
        assertThatThrownBy(() -> assertOneJsonDialect("{\"id\" : {\"value\" : \"co_1\"}}"))
                .isInstanceOf(AssertionError.class);
        assertOneJsonDialect("{\"id\" : \"hmac:v1:572750e75\", \"n\": 30, \"d\": \"PT30S\"}");
    }

    /** JSON: no value object in the stored shape, and no number token written with an exponent. */
    public static void assertOneJsonDialect(String json) {
        assertThat(VALUE_OBJECT.matcher(json).find()).as("a {\"value\": ...} in%n%s", json).isFalse();
        try (com.fasterxml.jackson.core.JsonParser in = new ObjectMapper().createParser(json)) {
            for (var token = in.nextToken(); token != null; token = in.nextToken()) {
                if (token.isNumeric()) {
                    assertThat(in.getText()).as("a number in%n%s", json).doesNotContainIgnoringCase("e");
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Text (a rendered report): neither shape anywhere. */
    public static void assertOneTextDialect(String text) {
        assertThat(VALUE_OBJECT.matcher(text).find()).as("a {\"value\": ...} in%n%s", text).isFalse();
        assertThat(EXPONENT.matcher(text).find()).as("a number with an exponent in%n%s", text).isFalse();
    }

    private static String write(ObjectNode bundle) throws Exception {
        return new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(bundle);
    }
}
