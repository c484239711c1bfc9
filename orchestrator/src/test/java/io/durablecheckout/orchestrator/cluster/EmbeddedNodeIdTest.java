package io.durablecheckout.orchestrator.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The embedded default keeps its node id beside its data directory, so a restart resumes its own claims at once. */
class EmbeddedNodeIdTest {

    @TempDir
    Path folder;

    @Test
    void theEmbeddedDefaultGetsAnIdOnItsFirstStartAndTheSameOneOnEveryLaterStart() throws Exception {
        Path data = folder.resolve("data");
        String first = nodeIdAfterStart(Map.of("checkout.embedded-postgres.data-dir", data.toString()));
        String second = nodeIdAfterStart(Map.of("checkout.embedded-postgres.data-dir", data.toString()));

        assertThat(first).startsWith("embedded-").isEqualTo(second);
        assertThat(Files.readString(folder.resolve("data.node-id")).trim()).isEqualTo(first);
        assertThat(data).as("initdb wants the data directory empty on the first start").doesNotExist();
        // another data directory is another node
        assertThat(nodeIdAfterStart(Map.of("checkout.embedded-postgres.data-dir", folder.resolve("other").toString())))
                .isNotEqualTo(first);
    }

    @Test
    void aDataDirectorySetAfterThePostProcessorRanIsTheOneUsed() {
        // as the integration tests set it (a dynamic property source, added after the environment is prepared)
        StandardEnvironment environment = new StandardEnvironment();
        new EmbeddedNodeId().postProcessEnvironment(environment, new SpringApplication());
        environment.getPropertySources().addFirst(new MapPropertySource("dynamic",
                Map.of("checkout.embedded-postgres.data-dir", folder.resolve("it-pg").toString())));

        String id = environment.getProperty(EmbeddedNodeId.NODE_ID);
        assertThat(id).startsWith("embedded-");
        assertThat(folder.resolve("it-pg.node-id")).content().isEqualToIgnoringNewLines(id);
    }

    @Test
    void aConfiguredDatabaseOrAnExplicitIdIsLeftAsItIs() {
        Path data = folder.resolve("data");
        assertThat(nodeIdAfterStart(Map.of("spring.datasource.url", "jdbc:postgresql://db/checkout",
                "checkout.embedded-postgres.data-dir", data.toString()))).isNull();
        assertThat(nodeIdAfterStart(Map.of(EmbeddedNodeId.NODE_ID, "node-1",
                "checkout.embedded-postgres.data-dir", data.toString()))).isEqualTo("node-1");
        assertThat(folder.resolve("data.node-id")).doesNotExist();
    }

    @Test
    void aDamagedIdFileIsRefusedWithWhatToDo() throws Exception {
        Files.writeString(folder.resolve("data.node-id"), "not an id\n");
        assertThatThrownBy(() -> EmbeddedNodeId.nodeIdFor(folder.resolve("data")))
                .hasMessageContaining("data.node-id").hasMessageContaining("delete it");
    }

    private static String nodeIdAfterStart(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", new HashMap<>(properties)));
        new EmbeddedNodeId().postProcessEnvironment(environment, new SpringApplication());
        return environment.getProperty(EmbeddedNodeId.NODE_ID);
    }
}
