package io.durablecheckout.orchestrator.config;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's start passes {@code compiler-directives.json} to the JVM (decision 90), which refuses to start on a
 * file it cannot read: this JVM reads the shipped file, as that start would.
 */
class CompilerDirectivesTest {

    @Test
    void theJvmAcceptsTheShippedDirectives() throws IOException, InterruptedException {
        Path file = Path.of("src/main/jvm/compiler-directives.json");
        assertThat(file).exists();
        Process java = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UnlockDiagnosticVMOptions", "-XX:CompilerDirectivesFile=" + file, "-version")
                .redirectErrorStream(true).start();
        String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(java.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(java.exitValue()).as(output).isZero();
        assertThat(output).contains("1 compiler directives added");
    }

    @Test
    void theOptimizingCompilerIsExcludedOnlyFromStartOnlyCode() throws IOException {
        String directives = Files.readString(Path.of("src/main/jvm/compiler-directives.json"));
        // the code the checkouts run stays with C2: Axon's messaging and event handling, JDBC, Jackson, this product
        assertThat(directives).contains("c2: { Exclude: true }")
                .doesNotContain("org/axonframework/eventhandling", "org/axonframework/messaging", "org/postgresql",
                        "com/fasterxml", "tools/jackson", "io/durablecheckout", "c1:");
    }
}
