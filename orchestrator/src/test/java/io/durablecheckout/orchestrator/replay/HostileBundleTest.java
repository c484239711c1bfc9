package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A bundle is a file anyone can hand over (issue 23, "a hostile bundle instantiates any class"): replay reads it only
 * into the checkout's own types, and refuses any other type it names without creating, or even initializing, it.
 */
class HostileBundleTest {

    private JsonNode bundle;

    @BeforeEach
    void aCorpusBundle() throws Exception {
        // a format-1 bundle, whose recorded inputs replay reads one by one (format 2 refuses a foreign type on reading)
        for (java.nio.file.Path file : ReplayCorpusTest.bundles()) {
            JsonNode read = RecordedInputs.MAPPER.readTree(file.toFile());
            if (HistoryBundle.FORMAT_1.equals(read.path("format").asText())) {
                bundle = read;
                break;
            }
        }
        HostileTypes.CONSTRUCTED.set(0);
    }

    @Test
    void an_event_naming_a_class_that_is_no_event_of_the_checkout_is_refused_and_never_created() {
        ObjectNode last = lastEvent();
        last.put("payloadType", HostileTypes.Payload.class.getName());
        last.set("payloadRevision", NullNode.instance);
        last.set("payload", RecordedInputs.MAPPER.createObjectNode());

        assertThatThrownBy(() -> HistoryBundle.read(bundle))
                .isInstanceOf(ReplayTypes.RefusedTypeException.class)
                .hasMessageContaining("refused event " + last.path("sequence").asLong())
                .hasMessageContaining(HostileTypes.Payload.class.getName())
                .hasMessageContaining("is not an event of the checkout");
        assertThat(HostileTypes.CONSTRUCTED).hasValue(0);
    }

    @Test
    void a_spring_resource_named_as_an_event_is_refused() {
        ObjectNode first = (ObjectNode) bundle.path("events").get(0);
        first.put("payloadType", "org.springframework.core.io.FileSystemResource");
        first.set("payloadRevision", NullNode.instance);
        first.set("payload", TextNode.valueOf("/etc/hostname"));

        assertThatThrownBy(() -> HistoryBundle.read(bundle))
                .isInstanceOf(ReplayTypes.RefusedTypeException.class)
                .hasMessageContaining("refused event 0")
                .hasMessageContaining("'org.springframework.core.io.FileSystemResource'");
    }

    /**
     * A recorded command's result carries its class as {@code @type}: a foreign one is refused by its name, before
     * the class is loaded (Jackson alone would load and initialize it, then find it is no result).
     */
    @Test
    void a_recorded_result_naming_a_foreign_class_is_refused_before_the_class_is_loaded() {
        ObjectNode result = null;
        for (JsonNode e : bundle.path("events")) {
            JsonNode r = e.path("metaData").path(RecordedInputs.INPUT).path("payload").path("result");
            if (r.has("@type")) {
                result = (ObjectNode) r;
                break;
            }
        }
        assertThat(result).as("a recorded activity result in the bundle").isNotNull();
        result.removeAll();
        result.put("@type", HostileTypes.Initialized.class.getName());

        ReplayReport report = new CheckoutReplayer().replay(HistoryBundle.read(bundle));

        assertThat(HostileTypes.INITIALIZED).as("the foreign class was initialized").hasValue(0);
        assertThat(report.identical()).isFalse();
        assertThat(report.render()).contains(HostileTypes.Initialized.class.getName()).contains("denied");
        assertThat(HostileTypes.CONSTRUCTED).hasValue(0);
    }

    @Test
    void the_command_line_refuses_such_a_bundle_with_exit_code_2_and_says_why(@TempDir Path dir) {
        ObjectNode last = lastEvent();
        last.put("payloadType", HostileTypes.Payload.class.getName());
        last.set("payloadRevision", NullNode.instance);
        last.set("payload", RecordedInputs.MAPPER.createObjectNode());
        Path file = dir.resolve("hostile.json");
        HistoryBundle.write(bundle, file);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int exit = ReplayCommand.run(new String[] {"replay", "--file", file.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                data -> {
                    throw new AssertionError("a bundle needs no database");
                });

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("error: bundle " + file)
                .contains("refused event " + last.path("sequence").asLong())
                .contains(HostileTypes.Payload.class.getName());
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(HostileTypes.CONSTRUCTED).hasValue(0);
    }

    private ObjectNode lastEvent() {
        return (ObjectNode) bundle.path("events").get(bundle.path("events").size() - 1);
    }
}
