package io.durablecheckout.orchestrator;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The line a start without the launcher logs: what it misses, and nothing when it misses nothing. */
class CheckoutApplicationTest {

    @Test
    void aPlainJavaJarStartSaysItRunsWithoutTheArchiveAndTheDirectives() {
        assertThat(CheckoutApplication.missingOptions(List.of("-Xmx256m"), false))
                .isEqualTo("Started without ./checkout (the launcher), so without the class-data archive (a slower"
                        + " start) and the compiler directives (slower work just after the start)");
        assertThat(CheckoutApplication.missingOptions(List.of("-XX:SharedArchiveFile=a.jsa"), false))
                .isEqualTo("Started without ./checkout (the launcher), so without the compiler directives (slower"
                        + " work just after the start)");
        assertThat(CheckoutApplication.missingOptions(List.of("-XX:CompilerDirectivesFile=d.json"), false))
                .endsWith("so without the class-data archive (a slower start)");
    }

    @Test
    void theLauncherOrBothOptionsKeepItQuiet() {
        assertThat(CheckoutApplication.missingOptions(List.of(), true)).isNull();
        assertThat(CheckoutApplication.missingOptions(
                List.of("-XX:SharedArchiveFile=a.jsa", "-XX:CompilerDirectivesFile=d.json"), false)).isNull();
    }
}
