package io.durablecheckout.activities.privacy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FileDataKeyStoreTest {

    @TempDir
    Path dir;

    private static byte[] key(int fill) {
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) fill);
        return key;
    }

    @Test
    void aKeyIsOneFileOnlyItsOwnerCanReadAndDestroyingItDeletesTheFile() throws Exception {
        FileDataKeyStore store = new FileDataKeyStore(dir.resolve("keys"));
        assertThat(store.find("chk-1")).isEmpty();

        assertThat(store.create("chk-1", key(7))).isEqualTo(key(7));
        Path file = store.file("chk-1");
        assertThat(Files.readAllBytes(file)).isEqualTo(key(7));
        assertThat(store.find("chk-1")).contains(key(7));
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(dir.resolve("keys"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(file.getParent())).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        // the name says nothing about the checkout; no temporary file is left
        assertThat(file.getFileName().toString()).doesNotContain("chk").hasSize(64 + ".key".length());
        try (Stream<Path> all = Files.walk(dir.resolve("keys"))) {
            assertThat(all.filter(Files::isRegularFile).toList()).containsExactly(file);
        }

        assertThat(store.destroy("chk-1")).isTrue();
        assertThat(file).doesNotExist();
        assertThat(store.find("chk-1")).isEmpty();
        assertThat(store.destroy("chk-1")).isFalse();
    }

    @Test
    void anExistingKeyWinsAndConcurrentCreatorsAgreeOnOne() throws Exception {
        FileDataKeyStore store = new FileDataKeyStore(dir);
        store.create("chk-a", key(1));
        assertThat(store.create("chk-a", key(2))).as("never replaced").isEqualTo(key(1));

        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<byte[]>> racers = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                int fill = 10 + i;
                // two stores on one directory, as two processes would be
                FileDataKeyStore own = i % 2 == 0 ? store : new FileDataKeyStore(dir);
                racers.add(() -> own.create("chk-race", key(fill)));
            }
            Set<String> winners = pool.invokeAll(racers).stream().map(FileDataKeyStoreTest::get)
                    .map(Arrays::toString).collect(Collectors.toSet());
            assertThat(winners).hasSize(1);
            assertThat(Arrays.toString(store.find("chk-race").orElseThrow())).isEqualTo(winners.iterator().next());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aKeyFileOfTheWrongSizeIsAnErrorNotAKey() throws Exception {
        FileDataKeyStore store = new FileDataKeyStore(dir);
        Path file = store.file("chk-bad");
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[5]);
        assertThatThrownBy(() -> store.find("chk-bad")).hasMessageContaining("has 5 bytes");
        assertThatThrownBy(() -> store.create("chk-x", new byte[16])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anExistingDirectoryOpenToOthersIsClosedToThem() throws Exception {
        Path open = Files.createDirectories(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        new FileDataKeyStore(open);
        assertThat(Files.getPosixFilePermissions(open)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
    }

    private static byte[] get(Future<byte[]> f) {
        try {
            return f.get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
