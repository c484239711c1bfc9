package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.Step;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/workflow.md shows the {@link Workflow} table and the state diagram rendered from it, between markers. When
 * the table changes, this test fails until the document is regenerated: run it with
 * {@code -Dworkflow.docs.write=true} and commit the rewritten document.
 */
class WorkflowDocumentationTest {

    private static final Path DOC = Path.of("..", "docs", "workflow.md");

    @Test
    void the_documented_table_is_the_code_table() throws IOException {
        assertBlock("workflow-table", WorkflowDiagram.markdown());
    }

    @Test
    void the_documented_diagram_is_rendered_from_the_table() throws IOException {
        assertBlock("workflow-diagram", "```mermaid\n" + WorkflowDiagram.mermaid() + "```\n");
    }

    @Test
    void every_step_has_one_row_and_every_request_one_step() {
        EnumSet<Step> steps = EnumSet.noneOf(Step.class);
        Workflow.STEPS.forEach(r -> assertThat(steps.add(r.step())).as("%s twice", r.step()).isTrue());
        Workflow.COMPENSATION_STEPS.forEach(r -> assertThat(steps.add(r.step())).as("%s twice", r.step()).isTrue());
        assertThat(steps).containsExactlyInAnyOrder(Step.values());
        assertThat(Workflow.STEPS).noneMatch(r -> r.step().isCompensation());
        assertThat(Workflow.COMPENSATION_STEPS).allMatch(r -> r.step().isCompensation());
        assertThat(Workflow.COMPENSATIONS).extracting(Workflow.Compensation::step)
                .containsExactlyInAnyOrderElementsOf(Workflow.COMPENSATION_STEPS.stream().map(Workflow.Row::step).toList());
    }

    private static void assertBlock(String name, String expected) throws IOException {
        String doc = Files.readString(DOC);
        String begin = "<!-- " + name + ":begin (generated from Workflow.java; WorkflowDocumentationTest) -->\n";
        String end = "<!-- " + name + ":end -->";
        int from = doc.indexOf(begin);
        int to = doc.indexOf(end);
        assertThat(from).as("docs/workflow.md has the markers %s … %s", begin.strip(), end).isNotNegative();
        assertThat(to).isGreaterThan(from);
        String documented = doc.substring(from + begin.length(), to);
        if (!documented.equals(expected) && Boolean.getBoolean("workflow.docs.write")) {
            Files.writeString(DOC, doc.substring(0, from + begin.length()) + expected + doc.substring(to));
            return;
        }
        assertThat(documented)
                .as("docs/workflow.md's %s differs from the Workflow table; regenerate it with -Dworkflow.docs.write=true",
                        name)
                .isEqualTo(expected);
    }
}
