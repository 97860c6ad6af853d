package io.vcorfu.layout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A {@link LayoutStore} in one local JSON file: {@code {"version": n, "layout": {...}}}.
 *
 * <p>Updates write a temporary file beside the target, fsync it, rename it over the target
 * atomically and fsync the directory, so a crash leaves either the old or the new document. Every
 * read and compare-and-set holds an exclusive lock on a sibling {@code <file>.lock} (an OS file
 * lock against other processes, plus a per-path lock inside this JVM, where OS locks do not
 * exclude), so two stores on the same file never both win a compare-and-set. I/O runs on one thread
 * per store; futures complete on it.
 */
public final class FileLayoutStore implements LayoutStore {
  private static final ConcurrentHashMap<Path, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

  private final Path file;
  private final Path lockFile;
  private final ReentrantLock jvmLock;
  private final ExecutorService io;

  public FileLayoutStore(Path file) {
    this.file = file.toAbsolutePath().normalize();
    this.lockFile = this.file.resolveSibling(this.file.getFileName() + ".lock");
    this.jvmLock = JVM_LOCKS.computeIfAbsent(this.file, k -> new ReentrantLock());
    this.io =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "layout-store-" + this.file.getFileName());
              t.setDaemon(true);
              return t;
            });
  }

  /** The file this store keeps the layout in. */
  public Path file() {
    return file;
  }

  @Override
  public CompletableFuture<Versioned<Layout>> get() {
    return run(() -> locked(this::readCurrent));
  }

  @Override
  public CompletableFuture<Versioned<Layout>> compareAndSet(long expectedVersion, Layout next) {
    return run(
        () ->
            locked(
                () -> {
                  Versioned<Layout> current = readOrNull();
                  long actual = current == null ? NO_VERSION : current.version();
                  if (actual != expectedVersion) {
                    throw new LayoutVersionMismatchException(expectedVersion, actual);
                  }
                  Versioned<Layout> written = new Versioned<>(next, actual + 1);
                  writeAtomically(written);
                  return written;
                }));
  }

  @Override
  public void close() {
    io.shutdown();
  }

  private CompletableFuture<Versioned<Layout>> run(Supplier<Versioned<Layout>> task) {
    try {
      return CompletableFuture.supplyAsync(task, io);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          new IllegalStateException("The layout store for " + file + " is closed."));
    }
  }

  private <T> T locked(Supplier<T> body) {
    jvmLock.lock();
    try {
      Files.createDirectories(file.getParent());
      try (FileChannel ch =
          FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        FileLock lock = ch.lock();
        try {
          return body.get();
        } finally {
          lock.release();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not lock the layout store file " + lockFile, e);
    } finally {
      jvmLock.unlock();
    }
  }

  private Versioned<Layout> readCurrent() {
    Versioned<Layout> v = readOrNull();
    if (v == null) {
      throw new LayoutNotFoundException(file.toString());
    }
    return v;
  }

  private Versioned<Layout> readOrNull() {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read the layout store file " + file, e);
    }
    JsonNode root;
    try {
      root = JsonTrees.read(text);
    } catch (IOException e) {
      throw new LayoutException("The layout store file " + file + " is not valid JSON.", e);
    }
    JsonNode version = root == null ? null : root.get("version");
    if (version == null || !version.canConvertToLong() || version.asLong() < 0) {
      throw new LayoutException("The layout store file " + file + " has no valid 'version'.");
    }
    return new Versioned<>(LayoutJson.fromTree(root.get("layout")), version.asLong());
  }

  private void writeAtomically(Versioned<Layout> v) {
    ObjectNode root = LayoutJson.mapper().createObjectNode();
    root.put("version", v.version());
    root.set("layout", LayoutJson.toTree(v.value()));
    try {
      byte[] bytes = LayoutJson.mapper().writeValueAsBytes(root);
      try {
        DurableFile.replace(file, bytes);
      } catch (AtomicMoveNotSupportedException e) {
        throw new LayoutException(
            "The file system of "
                + file
                + " cannot replace files atomically; the layout store needs it.",
            e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not write the layout store file " + file, e);
    }
  }
}
