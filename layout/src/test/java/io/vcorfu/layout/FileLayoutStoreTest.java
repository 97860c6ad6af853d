package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileLayoutStoreTest {
  @TempDir Path dir;

  static final Layout L1 = Layout.singleNode(new Endpoint("127.0.0.1", 9000), "c1");

  @Test
  void emptyStoreHasNoLayout() {
    try (FileLayoutStore store = new FileLayoutStore(dir.resolve("layout.json"))) {
      assertThatThrownBy(() -> store.get().join())
          .isInstanceOf(CompletionException.class)
          .hasCauseInstanceOf(LayoutNotFoundException.class);
    }
  }

  @Test
  void compareAndSetCreatesThenAdvancesTheVersion() {
    try (FileLayoutStore store = new FileLayoutStore(dir.resolve("layout.json"))) {
      Versioned<Layout> first = store.compareAndSet(LayoutStore.NO_VERSION, L1).join();
      assertThat(first).isEqualTo(new Versioned<>(L1, 0));
      Versioned<Layout> second = store.compareAndSet(0, L1.withEpoch(2)).join();
      assertThat(second).isEqualTo(new Versioned<>(L1.withEpoch(2), 1));
      assertThat(store.get().join()).isEqualTo(second);
    }
  }

  @Test
  void staleVersionIsRejectedAndNothingIsWritten() {
    try (FileLayoutStore store = new FileLayoutStore(dir.resolve("layout.json"))) {
      store.compareAndSet(LayoutStore.NO_VERSION, L1).join();
      store.compareAndSet(0, L1.withEpoch(2)).join();
      assertThatThrownBy(() -> store.compareAndSet(0, L1.withEpoch(9)).join())
          .hasCauseInstanceOf(LayoutVersionMismatchException.class)
          .cause()
          .hasMessageContaining("holds version 1 but the update expected version 0");
      assertThatThrownBy(() -> store.compareAndSet(LayoutStore.NO_VERSION, L1).join())
          .hasCauseInstanceOf(LayoutVersionMismatchException.class);
      assertThat(store.get().join()).isEqualTo(new Versioned<>(L1.withEpoch(2), 1));
    }
  }

  @Test
  void layoutAndVersionSurviveReopen() {
    Path file = dir.resolve("sub/layout.json");
    try (FileLayoutStore store = new FileLayoutStore(file)) {
      store.compareAndSet(LayoutStore.NO_VERSION, L1).join();
      store.compareAndSet(0, L1.withEpoch(5)).join();
    }
    try (FileLayoutStore reopened = new FileLayoutStore(file)) {
      assertThat(reopened.get().join()).isEqualTo(new Versioned<>(L1.withEpoch(5), 1));
      assertThat(reopened.compareAndSet(1, L1.withEpoch(6)).join().version()).isEqualTo(2);
    }
  }

  @Test
  void concurrentCompareAndSetFromTwoStoresOnOneFileHasExactlyOneWinnerPerVersion() {
    Path file = dir.resolve("layout.json");
    try (FileLayoutStore a = new FileLayoutStore(file);
        FileLayoutStore b = new FileLayoutStore(file)) {
      a.compareAndSet(LayoutStore.NO_VERSION, L1).join();
      for (long version = 0; version < 50; version++) {
        List<CompletableFuture<Versioned<Layout>>> attempts = new ArrayList<>();
        attempts.add(a.compareAndSet(version, L1.withEpoch(100 + version)));
        attempts.add(b.compareAndSet(version, L1.withEpoch(200 + version)));
        long winners =
            attempts.stream()
                .filter(
                    f -> {
                      try {
                        f.join();
                        return true;
                      } catch (CompletionException e) {
                        assertThat(e).hasCauseInstanceOf(LayoutVersionMismatchException.class);
                        return false;
                      }
                    })
                .count();
        assertThat(winners).as("winners at version %d", version).isEqualTo(1);
        assertThat(a.get().join().version()).isEqualTo(version + 1);
      }
    }
  }

  @Test
  void closedStoreFailsCalls() {
    FileLayoutStore store = new FileLayoutStore(dir.resolve("layout.json"));
    store.close();
    assertThatThrownBy(() -> store.get().join()).hasCauseInstanceOf(IllegalStateException.class);
  }
}
