package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.failure;
import static io.vcorfu.logunit.Fixtures.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.OverwrittenException;
import io.vcorfu.protocol.TrimmedException;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogCommitRequest;
import io.vcorfu.protocol.proto.LogFillRequest;
import io.vcorfu.protocol.proto.LogReadRequest;
import io.vcorfu.protocol.proto.LogTrimRequest;
import io.vcorfu.protocol.proto.LogTrimResponse;
import io.vcorfu.protocol.proto.LogWriteRequest;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.ReadResult.Status;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Random operations against a log replica and a plain model of its rules; durable runs use tiny
 * segments and reopen often, so rolling, index files, trimming and segment deletion are all
 * exercised against the same expectations.
 */
class LogReplicaModelTest {
  private static final Logger LOG = LoggerFactory.getLogger(LogReplicaModelTest.class);
  private static final int ADDRESSES = 300;
  private static final int OPS = 1500;

  @TempDir Path dir;

  /** The holes the model's trims passed: the replica keeps them below its mark. */
  private final java.util.SortedSet<Long> kept = new java.util.TreeSet<>();

  private record Held(boolean hole, boolean committed, String payload) {}

  @ParameterizedTest(name = "{0} seed {1}")
  @CsvSource({"MEMORY, 11", "DURABLE, 11", "DURABLE, 12", "DURABLE, 13", "DURABLE, 14"})
  void replicaMatchesModel(StorageMode mode, long seed) throws Exception {
    LOG.info("random seed {} ({})", seed, mode);
    Random rnd = new Random(seed);
    StorageOptions options =
        StorageOptions.builder()
            .mode(mode)
            .directory(mode == StorageMode.DURABLE ? dir : null)
            .segmentSize(4096)
            .fsyncPolicy(FsyncPolicy.NONE)
            .build();
    Map<Long, Held> model = new HashMap<>();
    long trim = 0;
    kept.clear();
    LogReplica r = LogReplica.open(options);
    try {
      for (int i = 0; i < OPS; i++) {
        long a = rnd.nextInt(ADDRESSES);
        int op = rnd.nextInt(100);
        Held held = model.get(a);
        if (op < 50) {
          String payload = "p" + a + "-" + rnd.nextInt(2) + "-" + "x".repeat(rnd.nextInt(200));
          boolean commit = rnd.nextBoolean();
          var f =
              r.write(
                  LogWriteRequest.newBuilder()
                      .setEntry(data(a, payload))
                      .setCommit(commit)
                      .build());
          if (a < trim && kept.contains(a)) {
            assertThat(failure(f, OverwrittenException.class).holdsHole()).isTrue();
          } else if (a < trim) {
            failure(f, TrimmedException.class);
          } else if (held == null) {
            get(f);
            model.put(a, new Held(false, commit, payload));
          } else if (!held.hole() && held.payload().equals(payload)) {
            get(f);
            model.put(a, new Held(false, held.committed() || commit, payload));
          } else {
            assertThat(failure(f, OverwrittenException.class).holdsHole()).isEqualTo(held.hole());
          }
        } else if (op < 65) {
          var f = r.commit(LogCommitRequest.newBuilder().addAddresses(a).build());
          if (a >= trim && held == null) {
            failure(f, BadRequestException.class);
          } else {
            get(f);
            if (a >= trim && !held.hole()) {
              model.put(a, new Held(false, true, held.payload()));
            }
          }
        } else if (op < 90) {
          boolean abort = rnd.nextBoolean();
          boolean commit = rnd.nextBoolean();
          fill(r, model, trim, a, abort, commit);
        } else if (op < 93) {
          long before = Math.min(ADDRESSES, trim + rnd.nextInt(40));
          if (rnd.nextBoolean()) {
            // Decide the range first, as the log's trim does before it trims.
            for (long d = trim; d < before; d++) {
              fill(r, model, trim, d, true, true);
            }
          }
          long expected = trim;
          while (expected < before
              && model.get(expected) != null
              && model.get(expected).committed()) {
            if (model.get(expected).hole()) {
              kept.add(expected);
            }
            expected++;
          }
          LogTrimResponse t = get(r.trim(LogTrimRequest.newBuilder().setBefore(before).build()));
          assertThat(t.getTrimMark()).isEqualTo(expected);
          if (expected < before) {
            assertThat(t.getUndecidedList()).startsWith(expected);
          }
          trim = expected;
        } else {
          if (mode == StorageMode.DURABLE) {
            r.close();
            r = LogReplica.open(options);
          }
          check(r, model, trim, seed, i);
        }
      }
      check(r, model, trim, seed, OPS);
      assertThat(kept).as("holes the trims passed (seed %d)", seed).isNotEmpty();
      assertThat(trim).as("the trims' reach (seed %d)", seed).isGreaterThan(ADDRESSES / 2);
      assertThat(r.keptHoles()).containsExactly(kept.stream().mapToLong(Long::longValue).toArray());
    } finally {
      r.close();
    }
  }

  /** A fill of {@code a}, on the replica and in the model. */
  private void fill(
      LogReplica r, Map<Long, Held> model, long trim, long a, boolean abort, boolean commit) {
    get(
        r.fill(
            LogFillRequest.newBuilder().setAddress(a).setAbort(abort).setCommit(commit).build()));
    Held held = model.get(a);
    if (a >= trim) {
      if (held == null) {
        model.put(a, new Held(true, commit, null));
      } else if (!held.hole() && !held.committed() && abort) {
        model.put(a, new Held(true, commit, null));
      } else if (held.hole() && commit) {
        model.put(a, new Held(true, true, null));
      }
    }
  }

  private void check(LogReplica r, Map<Long, Held> model, long trim, long seed, int step) {
    List<ReadResult> all =
        get(r.read(LogReadRequest.newBuilder().setFrom(0).setTo(ADDRESSES - 1).build()))
            .getResultsList();
    for (long a = 0; a < ADDRESSES; a++) {
      ReadResult got = all.get((int) a);
      String where = "address " + a + " after step " + step + " (seed " + seed + ")";
      Held want = model.get(a);
      if (a < trim && kept.contains(a)) {
        assertThat(got.getStatus()).as(where).isEqualTo(Status.COMMITTED);
        assertThat(got.getEntry().getKind()).as(where).isEqualTo(EntryKind.HOLE);
      } else if (a < trim) {
        assertThat(got.getStatus()).as(where).isEqualTo(Status.TRIMMED);
      } else if (want == null) {
        assertThat(got.getStatus()).as(where).isEqualTo(Status.EMPTY);
      } else {
        assertThat(got.getStatus())
            .as(where)
            .isEqualTo(want.committed() ? Status.COMMITTED : Status.UNCOMMITTED);
        assertThat(got.getEntry().getKind())
            .as(where)
            .isEqualTo(want.hole() ? EntryKind.HOLE : EntryKind.DATA);
        if (!want.hole()) {
          assertThat(got.getEntry().getPayload().toStringUtf8())
              .as(where)
              .isEqualTo(want.payload());
        }
      }
    }
  }
}
