package io.durablecheckout.activities.privacy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;

/**
 * Data keys as files: {@code <dir>/<ab>/<sha-256 of the checkout id>.key}, 32 bytes each, the directories 0700 and the
 * files 0600 where the file system has POSIX permissions. A key is written to a temporary file, forced to disk, then
 * hard-linked to its name (a link fails when the name exists, so two processes creating the same checkout's key agree
 * on one), and the directory is forced too: a key is durable before anything sealed under it is committed.
 * {@link #destroy} overwrites and deletes the file. The file system may still keep freed blocks (journal, SSD
 * remapping, snapshots): docs/security.md says what to run it on. Several nodes need one shared directory.
 */
public final class FileDataKeyStore implements DataKeyStore {

    static final int KEY_BYTES = 32;
    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private final Path root;
    private final boolean posix;

    public FileDataKeyStore(Path directory) {
        this.root = directory.toAbsolutePath().normalize();
        this.posix = root.getFileSystem().supportedFileAttributeViews().contains("posix");
        try {
            Files.createDirectories(root, directoryAttributes());
            if (posix && !Files.getPosixFilePermissions(root).equals(DIRECTORY)) {
                Files.setPosixFilePermissions(root, DIRECTORY); // only this process's user may list or read keys
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot use " + root + " as the data key store (" + DataKeyStore.PROPERTY
                    + "): " + e, e);
        }
        if (!Files.isDirectory(root) || !Files.isWritable(root)) {
            throw new IllegalStateException("The data key store " + root + " (" + DataKeyStore.PROPERTY
                    + ") is not a writable directory");
        }
    }

    /**
     * Where the key files go: {@value DataKeyStore#PROPERTY} when set; in the embedded demo (no
     * {@code spring.datasource.url}) beside the embedded database's data directory, {@code <data-dir>-keys}
     * ({@code ./data-keys} by default): not inside it, where a base backup of the database would copy the keys and a
     * first start's initdb would find the directory not empty. Empty otherwise: nothing to guess on a real database.
     */
    public static Optional<Path> location(org.springframework.core.env.Environment env) {
        String configured = env.getProperty(DataKeyStore.PROPERTY, "");
        if (!configured.isBlank()) return Optional.of(Path.of(configured));
        if (!env.getProperty("spring.datasource.url", "").isBlank()) return Optional.empty();
        String dataDir = env.getProperty("checkout.embedded-postgres.data-dir", "");
        Path data = Path.of(dataDir.isBlank() ? "./data" : dataDir).toAbsolutePath().normalize();
        return Optional.of(data.resolveSibling(data.getFileName() + "-keys"));
    }

    public Path directory() {
        return root;
    }

    @Override
    public byte[] create(String checkoutId, byte[] key) {
        if (key.length != KEY_BYTES) throw new IllegalArgumentException("a data key has " + KEY_BYTES + " bytes");
        Path file = file(checkoutId);
        Optional<byte[]> existing = read(file);
        if (existing.isPresent()) return existing.get();
        Path shard = file.getParent();
        Path temporary = null;
        try {
            if (!Files.isDirectory(shard)) { // asked first: on an existing shard createDirectories throws and catches
                Files.createDirectories(shard, directoryAttributes());
            }
            temporary = posix ? Files.createTempFile(shard, ".new-", ".tmp", PosixFilePermissions.asFileAttribute(FILE))
                    : Files.createTempFile(shard, ".new-", ".tmp");
            try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                out.write(ByteBuffer.wrap(key));
                out.force(true);
            }
            try {
                Files.createLink(file, temporary);
            } catch (FileAlreadyExistsException lost) {
                return read(file).orElseThrow(() -> new IllegalStateException("data key of " + checkoutId + " vanished"));
            } catch (UnsupportedOperationException | FileSystemException noLinks) {
                try {
                    Files.move(temporary, file); // no hard links here: refuses an existing name, not atomically
                    temporary = null;
                } catch (FileAlreadyExistsException lost) {
                    return read(file).orElseThrow(() -> new IllegalStateException("data key of " + checkoutId + " vanished"));
                }
            }
            forceDirectory(shard);
            return key.clone();
        } catch (IOException e) {
            throw new UncheckedIOException("writing the data key of checkout " + checkoutId + " to " + shard, e);
        } finally {
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // a leftover temporary file is not a key of anything; the next create uses a new name
                }
            }
        }
    }

    @Override
    public Optional<byte[]> find(String checkoutId) {
        return read(file(checkoutId));
    }

    @Override
    public boolean destroy(String checkoutId) {
        Path file = file(checkoutId);
        try {
            if (!Files.exists(file)) return false;
            try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE)) {
                out.write(ByteBuffer.allocate(KEY_BYTES)); // zeros over the key's blocks first (best effort, see above)
                out.force(true);
            } catch (NoSuchFileException gone) {
                return false;
            }
            boolean deleted = Files.deleteIfExists(file);
            forceDirectory(file.getParent());
            return deleted;
        } catch (IOException e) {
            throw new UncheckedIOException("deleting the data key of checkout " + checkoutId, e);
        }
    }

    private Optional<byte[]> read(Path file) {
        if (!Files.exists(file)) {
            return Optional.empty(); // a new checkout's key: asked, not learned from an exception per checkout
        }
        try {
            byte[] key = Files.readAllBytes(file);
            if (key.length != KEY_BYTES) {
                throw new IllegalStateException("data key file " + file + " has " + key.length + " bytes, not " + KEY_BYTES);
            }
            return Optional.of(key);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("reading data key file " + file, e);
        }
    }

    /** A fixed-length name that says nothing about the checkout and cannot leave the directory. */
    Path file(String checkoutId) {
        try {
            String name = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(checkoutId.getBytes(StandardCharsets.UTF_8)));
            return root.resolve(name.substring(0, 2)).resolve(name + ".key");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    private FileAttribute<?>[] directoryAttributes() {
        return posix ? new FileAttribute<?>[]{PosixFilePermissions.asFileAttribute(DIRECTORY)} : new FileAttribute<?>[0];
    }

    /** Makes a new or removed name durable (Linux; other systems may refuse to open a directory, then it is skipped). */
    private static void forceDirectory(Path directory) {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // not supported on this platform: the file itself was forced
        }
    }
}
