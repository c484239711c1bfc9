package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.orchestrator.checkout.CheckoutDecider;
import io.durablecheckout.orchestrator.checkout.CheckoutFacts;
import io.durablecheckout.orchestrator.checkout.Decision;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker's result is delivered at least once: delivered again right after it was applied, it decides nothing (no
 * event, no timer scheduled or cancelled), at every result of every corpus history, whichever step it concludes.
 * The history then goes on exactly as recorded, so the duplicate left the checkout's facts as they were.
 */
class DuplicateResultsTest {

    @TestFactory
    Stream<DynamicTest> a_result_delivered_again_right_after_it_was_applied_changes_nothing() throws Exception {
        return ReplayCorpusTest.bundles().stream().map(file -> DynamicTest.dynamicTest(
                file.getFileName().toString(), () -> replayWithDuplicates(file)));
    }

    private static void replayWithDuplicates(Path file) throws Exception {
        List<HistoryEvent> history = HistoryBundle.read(file).events();
        List<List<HistoryEvent>> inputs = new ArrayList<>();
        for (HistoryEvent event : history) {
            List<HistoryEvent> last = inputs.isEmpty() ? null : inputs.get(inputs.size() - 1);
            if (last != null && event.inputId() != null && event.inputId().equals(last.get(0).inputId())) {
                last.add(event);
            } else {
                inputs.add(new ArrayList<>(List.of(event)));
            }
        }
        CheckoutFacts facts = CheckoutFacts.INITIAL;
        int duplicates = 0;
        for (List<HistoryEvent> recorded : inputs) {
            Map<String, Object> input = recorded.get(0).input();
            List<Object> events = recorded.stream().map(HistoryEvent::payload).toList();
            if (facts != CheckoutFacts.INITIAL) {
                Object command = CheckoutReplayer.input(input, recorded.get(0).inputPayload());
                Decision first = CheckoutDecider.decide(command, facts, CheckoutReplayer.at(input));
                assertThat(first.events()).as("%s, input %s", file.getFileName(), input.get("type")).isEqualTo(events);
                CheckoutFacts after = facts;
                for (CheckoutEvent e : first.events()) {
                    after = after.evolve(e);
                }
                if (command instanceof RecordActivityResultCommand
                        && first.events().stream().noneMatch(e -> e instanceof ActivityResultRejectedEvent)) {
                    assertThat(CheckoutDecider.decide(command, after, CheckoutReplayer.at(input)))
                            .as("%s: %s delivered again", file.getFileName(), CheckoutReplayer.describeInput(input))
                            .isEqualTo(Decision.NOTHING);
                    duplicates++;
                }
            }
            for (Object e : events) {
                facts = facts.evolve((CheckoutEvent) e);
            }
        }
        assertThat(duplicates).as("results delivered again").isPositive();
    }
}
