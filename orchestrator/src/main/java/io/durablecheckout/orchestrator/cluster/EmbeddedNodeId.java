package io.durablecheckout.orchestrator.cluster;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The embedded default (no {@code spring.datasource.url}) keeps one node id for good, in a file beside its data
 * directory ({@code ./data.node-id} for {@code ./data}, where the password file is): a restarted node then resumes
 * its own processor claims at once instead of waiting out {@code checkout.processing.claim-timeout} for the claims
 * its previous process left under another {@code pid@host} (decision 22). Not inside the data directory: on the first
 * start PostgreSQL's initdb wants that directory empty. The data directory has one live server at a time, so the id
 * is never shared by two live nodes. A configured database, or an explicit {@code checkout.processing.node-id},
 * is left as it is.
 */
public final class EmbeddedNodeId implements EnvironmentPostProcessor, Ordered {

    static final String NODE_ID = "checkout.processing.node-id";
    static final String SUFFIX = ".node-id";
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._@-]{1,100}");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        // Last, so any explicit node id wins; read when the id is first asked for (binding), when every property
        // source is in place, tests' dynamic ones too (the data directory may be set after this runs).
        environment.getPropertySources().addLast(new Lazy(environment));
    }

    /** Answers {@value #NODE_ID} only, for the embedded default only, from the id file of its data directory. */
    private static final class Lazy extends PropertySource<Object> {
        private final ConfigurableEnvironment environment;
        private final Map<Path, String> ids = new ConcurrentHashMap<>();

        Lazy(ConfigurableEnvironment environment) {
            super("checkout-embedded-node-id", new Object());
            this.environment = environment;
        }

        @Override
        public Object getProperty(String name) {
            if (!NODE_ID.equals(name) || !environment.getProperty("spring.datasource.url", "").isBlank()) {
                return null;
            }
            String dataDir = environment.getProperty("checkout.embedded-postgres.data-dir", "./data");
            Path dir = Path.of(dataDir.isBlank() ? "./data" : dataDir).toAbsolutePath().normalize();
            return ids.computeIfAbsent(dir, EmbeddedNodeId::nodeIdFor);
        }
    }

    /** The id kept beside this data directory, made (and written) on the first start. */
    static String nodeIdFor(Path dataDirectory) {
        Path absolute = dataDirectory.toAbsolutePath().normalize();
        Path file = absolute.resolveSibling(absolute.getFileName() + SUFFIX);
        try {
            if (Files.exists(file)) {
                String id = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (!VALID.matcher(id).matches()) {
                    throw new IllegalStateException("The embedded node id file " + file + " does not hold a node id"
                            + " (letters, digits, . _ @ -): delete it to have a new one made");
                }
                return id;
            }
            byte[] random = new byte[6];
            new SecureRandom().nextBytes(random);
            String id = "embedded-" + HexFormat.of().formatHex(random);
            Files.createDirectories(file.getParent());
            Files.writeString(file, id + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
            return id;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot keep the embedded node's id in " + file, e);
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE; // after the configuration files are read (they set the data directory)
    }
}
