package io.durablecheckout.orchestrator.it.support;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which jar the launcher starts: target/ also holds the plain classes jar and the test jar (benchmarks module), and
 * starting either would fail in odd ways. Only the executable jar (a Spring Boot {@code Start-Class}) qualifies.
 */
public class NodeProcessTest {

    @Test
    void startsOnlyTheExecutableJarAndFromAPrivateCopy(@TempDir Path target) throws IOException {
        jar(target.resolve("checkout-orchestrator-0.1.0-SNAPSHOT-classes.jar"), null);
        jar(target.resolve("checkout-orchestrator-0.1.0-SNAPSHOT-tests.jar"), null);
        jar(target.resolve("checkout-orchestrator-0.1.0-SNAPSHOT.jar"), "io.durablecheckout.orchestrator.CheckoutApplication");

        Path chosen = NodeProcess.packagedJar(target);

        assertThat(chosen).isNotNull();
        assertThat(chosen.getFileName().toString()).startsWith("node-");
        try (JarFile jar = new JarFile(chosen.toFile())) {
            assertThat(jar.getManifest().getMainAttributes().getValue("Start-Class"))
                    .isEqualTo("io.durablecheckout.orchestrator.CheckoutApplication");
        }
        assertThat(NodeProcess.packagedJar(target)).isEqualTo(chosen); // one copy per JVM
    }

    @Test
    void withoutAnExecutableJarThereIsNone(@TempDir Path target) throws IOException {
        jar(target.resolve("checkout-orchestrator-0.1.0-SNAPSHOT-classes.jar"), null);
        jar(target.resolve("checkout-orchestrator-0.1.0-SNAPSHOT-tests.jar"), null);

        assertThat(NodeProcess.packagedJar(target)).isNull();
    }

    private static void jar(Path path, String startClass) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (startClass != null) {
            manifest.getMainAttributes().putValue("Start-Class", startClass);
        }
        try (OutputStream out = Files.newOutputStream(path); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.flush();
        }
    }
}
