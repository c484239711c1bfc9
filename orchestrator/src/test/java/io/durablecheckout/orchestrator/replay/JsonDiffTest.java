package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The replayer's comparison of values: one line per differing path, and numbers equal across their types. */
class JsonDiffTest {

    private static JsonNode json(String text) throws Exception {
        return RecordedInputs.MAPPER.readTree(text);
    }

    @Test
    void each_differing_path_is_one_line_with_both_values() throws Exception {
        JsonNode recorded = json("{\"a\":1,\"b\":{\"c\":\"x\",\"d\":[1,2]},\"gone\":true}");
        JsonNode produced = json("{\"a\":1,\"b\":{\"c\":\"y\",\"d\":[1,3,4]},\"new\":null}");

        assertThat(JsonDiff.diff(recorded, produced)).containsExactly(
                "b.c: \"x\" -> \"y\"",
                "b.d[1]: 2 -> 3",
                "b.d[2]: (absent) -> 4",
                "gone: true -> (absent)",
                "new: (absent) -> null");
        assertThat(JsonDiff.equal(recorded, produced)).isFalse();
        assertThat(JsonDiff.equal(recorded, recorded.deepCopy())).isTrue();
    }

    @Test
    void a_field_only_one_side_has_is_a_difference_whichever_side() throws Exception {
        assertThat(JsonDiff.diff(json("{\"a\":1}"), json("{}"))).containsExactly("a: 1 -> (absent)");
        assertThat(JsonDiff.diff(json("{}"), json("{\"a\":1}"))).containsExactly("a: (absent) -> 1");
    }

    @Test
    void the_same_number_in_another_form_is_no_difference_and_the_top_level_is_labelled() throws Exception {
        assertThat(JsonDiff.diff(json("{\"n\":1}"), json("{\"n\":1.0}"))).isEmpty();
        assertThat(JsonDiff.diff(json("{\"n\":1}"), json("{\"n\":\"1\"}"))).containsExactly("n: 1 -> \"1\"");
        assertThat(JsonDiff.diff(json("1"), json("2"))).containsExactly("(value): 1 -> 2");
        assertThat(JsonDiff.diff(json("\"a\""), json("\"b\""))).containsExactly("(value): \"a\" -> \"b\"");
    }

    @Test
    void same_values_compares_maps_lists_and_numbers_of_any_type() {
        assertThat(JsonDiff.sameValues(Map.of("a", 1, "b", List.of(1L, "x")), Map.of("a", 1L, "b", List.of(1, "x"))))
                .isTrue();
        assertThat(JsonDiff.sameValues(Map.of("a", 1), Map.of("a", 2))).isFalse();
        assertThat(JsonDiff.sameValues(Map.of("a", 1), Map.of("b", 1))).isFalse();
        assertThat(JsonDiff.sameValues(Map.of("a", 1), Map.of("a", 1, "b", 2))).isFalse();
        assertThat(JsonDiff.sameValues(List.of(1, 2), List.of(1))).isFalse();
        assertThat(JsonDiff.sameValues(List.of(1, 2), List.of(1, 3))).isFalse();
        assertThat(JsonDiff.sameValues(2.5, 2.50f)).isTrue();
        assertThat(JsonDiff.sameValues(2, 3L)).isFalse();
        assertThat(JsonDiff.sameValues("a", "a")).isTrue();
        assertThat(JsonDiff.sameValues("a", "b")).isFalse();
        assertThat(JsonDiff.sameValues(null, null)).isTrue();
        assertThat(JsonDiff.sameValues(List.of(), Map.of())).isFalse();
    }

    @Test
    void state_changes_name_each_changed_field_and_a_creation() throws Exception {
        assertThat(StateChanges.between(null, json("{\"state\":\"created\"}"))).containsExactly("(created)");
        assertThat(StateChanges.between(json("{\"state\":\"created\",\"v\":1}"),
                json("{\"state\":\"stock_reserved\",\"v\":1}")))
                .containsExactly("state: \"created\" -> \"stock_reserved\"");
        assertThat(StateChanges.between(json("{\"v\":1}"), json("{\"v\":1}"))).isEmpty();
    }
}
