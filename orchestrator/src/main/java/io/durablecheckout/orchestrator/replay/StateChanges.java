package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** What one event changed in a checkout's view: {@code field: before -> after}, one line per changed field. */
public final class StateChanges {

    private StateChanges() {
    }

    public static List<String> between(JsonNode before, JsonNode after) {
        if (before == null) {
            return List.of("(created)");
        }
        return JsonDiff.diff(before, after);
    }
}
