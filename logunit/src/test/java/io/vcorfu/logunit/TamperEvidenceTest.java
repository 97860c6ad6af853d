package io.vcorfu.logunit;

import static io.vcorfu.logunit.Fixtures.data;
import static io.vcorfu.logunit.Fixtures.get;
import static io.vcorfu.logunit.Fixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.DamagedEntryException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainReportMsg;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.ReadResult;
import io.vcorfu.protocol.proto.VerifyRequest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tamper evidence of a replica's storage: each entry's digest is stored beside it, each stream's
 * chain head commits to its history, an altered byte in a segment file is named by its address, a
 * pinned head still checks after trims, restarts and compaction, and a copied entry that does not
 * match its source's digest is refused.
 */
class TamperEvidenceTest {
  private static final StreamId S = StreamId.of("tamper");

  @TempDir Path dir;

  private static StorageOptions small(Path dir) {
    return StorageOptions.builder()
        .mode(StorageMode.DURABLE)
        .directory(dir)
        .segmentSize(4096)
        .compactBelow(0)
        .build();
  }

  private static String value(int i) {
    return "value-" + i + "-" + "x".repeat(200);
  }

  /** Writes entries 0..n-1 of S, committed, global address = stream address. */
  private static List<LogEntryMsg> write(ReplicaStore store, int n) {
    List<LogEntryMsg> written = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      LogEntryMsg e = data(i, value(i), slot(S, i));
      get(store.streamReplica().write(e, List.of(new StreamReplica.Slot(S, i)), true));
      written.add(e);
    }
    return written;
  }

  /** The head at {@code at} computed from the entries themselves, as any client could. */
  private static byte[] expectedHead(List<LogEntryMsg> entries, int at) {
    byte[] h = ChainDigests.seed(S);
    for (int i = 0; i <= at; i++) {
      byte[] d =
          ChainDigests.ofEntry(entries.get(i).toBuilder().setEpoch(99).build().toByteArray());
      h = ChainDigests.link(h, i, d);
    }
    return h;
  }

  private static ChainReportMsg verify(ReplicaStore store, long pinAt, byte[] pin) {
    VerifyRequest.Builder r = VerifyRequest.newBuilder().setStream(S.toMsg());
    if (pin != null) {
      r.setPinPosition(pinAt).setPinHash(ByteString.copyFrom(pin));
    }
    return get(store.verify(r.build())).getReports(0);
  }

  private static ChainReportMsg head(ReplicaStore store, long at) {
    return get(store.verify(
            VerifyRequest.newBuilder()
                .setStream(S.toMsg())
                .setHeadOnly(true)
                .setPinPosition(at)
                .build()))
        .getReports(0);
  }

  @Test
  void theHeadIsTheChainOfTheEntriesWhateverTheirEpoch() throws IOException {
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      List<LogEntryMsg> entries = write(store, 20);
      ChainReportMsg h = head(store, -1);
      assertThat(h.getHeadPosition()).isEqualTo(19);
      assertThat(h.getStop()).isEqualTo("END");
      assertThat(h.getHead().toByteArray()).isEqualTo(expectedHead(entries, 19));
      ChainReportMsg at7 = head(store, 7);
      assertThat(at7.getHeadPosition()).isEqualTo(7);
      assertThat(at7.getHead().toByteArray()).isEqualTo(expectedHead(entries, 7));

      ChainReportMsg clean = verify(store, 19, expectedHead(entries, 19));
      assertThat(clean.getDamagedList()).isEmpty();
      assertThat(clean.getChecked()).isEqualTo(20);
      assertThat(clean.getPin()).isEqualTo("MATCH");
      assertThat(verify(store, 7, expectedHead(entries, 8)).getPin()).isEqualTo("MISMATCH");
      assertThat(verify(store, 25, expectedHead(entries, 8)).getPin()).isEqualTo("NOT_REACHED");
    }
  }

  @Test
  void theChainStopsAtTheFirstUndecidedPosition() throws IOException {
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      List<LogEntryMsg> entries = write(store, 3);
      LogEntryMsg pending = pendingAt3Then4(store);
      ChainReportMsg h = head(store, -1);
      assertThat(h.getHeadPosition()).isEqualTo(2);
      assertThat(h.getStop()).isEqualTo("UNDECIDED");
      assertThat(h.getHead().toByteArray()).isEqualTo(expectedHead(entries, 2));

      get(store.streamReplica().commit(List.of(new StreamReplica.Slot(S, 3))));
      entries.add(pending);
      entries.add(data(4, value(4), slot(S, 4)));
      assertThat(head(store, -1).getHead().toByteArray()).isEqualTo(expectedHead(entries, 4));
    }
  }

  @Test
  void aTrimPastAnUndecidedPositionLeavesTheChainUnanchoredAndSaysSo() throws IOException {
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      List<LogEntryMsg> entries = write(store, 3);
      pendingAt3Then4(store);
      byte[] pinned = expectedHead(entries, 2);
      get(store.streamReplica().trim(S, 5));
      ChainReportMsg r = verify(store, 2, pinned);
      assertThat(r.getAnchored()).isFalse();
      assertThat(r.getHead().isEmpty()).isTrue();
      assertThat(r.getPin()).isEqualTo("TRIMMED");
      assertThat(verify(store, 6, pinned).getPin()).isEqualTo("UNANCHORED");
    }
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      assertThat(verify(store, 6, expectedHead(List.of(), -1)).getAnchored()).isFalse();
    }
  }

  /** After entries 0..2: entry 3 written uncommitted, entry 4 committed; returns entry 3. */
  private static LogEntryMsg pendingAt3Then4(ReplicaStore store) {
    LogEntryMsg pending = data(3, value(3), slot(S, 3));
    get(store.streamReplica().write(pending, List.of(new StreamReplica.Slot(S, 3)), false));
    LogEntryMsg e = data(4, value(4), slot(S, 4));
    get(store.streamReplica().write(e, List.of(new StreamReplica.Slot(S, 4)), true));
    return pending;
  }

  @Test
  void anAlteredByteInASegmentFileIsNamedByItsAddress() throws IOException {
    List<LogEntryMsg> entries;
    byte[] pinned;
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      entries = write(store, 40);
      pinned = head(store, -1).getHead().toByteArray();
    }
    // Flip one byte of entry 17's value where it lies in its (sealed) segment file.
    flip(dir, ("value-17-").getBytes(StandardCharsets.UTF_8));
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      ChainReportMsg r = verify(store, 39, pinned);
      assertThat(r.getDamagedList()).hasSize(1);
      assertThat(r.getDamaged(0).getAddress()).isEqualTo(17);
      assertThat(r.getDamaged(0).getReason()).contains("do not match the digest");
      assertThat(r.getChecked()).isEqualTo(40);
      // The digests in the index are those computed when the entries were written: the head
      // still matches the pin, and the damage is what verify reports.
      assertThat(r.getPin()).isEqualTo("MATCH");
      assertThat(entries).hasSize(40);
    }
  }

  @Test
  void aReadNeverServesBytesAlteredAfterTheyWereStoredOrFirstChecked() throws IOException {
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      write(store, 40);
      flip(dir, ("value-12-").getBytes(StandardCharsets.UTF_8)); // while the store runs
      DamagedEntryException e =
          Fixtures.failure(store.streamReplica().read(S, 10, 14), DamagedEntryException.class);
      assertThat(e.stream()).isEqualTo(S);
      assertThat(e.address()).isEqualTo(12);
      assertThat(get(store.streamReplica().read(S, 13, 14))).hasSize(2);
    }
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      // After a restart each entry is checked against its digest when first served: the altered
      // one is refused, the others served and remembered, and a later alteration still refused.
      assertThat(Fixtures.failure(store.streamReplica().read(S, 12, 12)))
          .isInstanceOf(DamagedEntryException.class);
      assertThat(get(store.streamReplica().read(S, 20, 29))).hasSize(10);
      flip(dir, ("value-25-").getBytes(StandardCharsets.UTF_8));
      assertThat(
              Fixtures.failure(store.streamReplica().read(S, 20, 29), DamagedEntryException.class)
                  .address())
          .isEqualTo(25);
    }
  }

  @Test
  void aStoreRewrittenWithOtherContentFailsThePinnedHead(@TempDir Path other) throws IOException {
    byte[] pinned;
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      write(store, 10);
      pinned = head(store, 9).getHead().toByteArray();
    }
    // Someone with every file of the replica rewrites it whole, consistently, with entry 4
    // changed: every record and digest checks, but the head no longer matches the pin.
    try (ReplicaStore forged = ReplicaStore.open(small(other))) {
      for (int i = 0; i < 10; i++) {
        String v = i == 4 ? "forged" : value(i);
        LogEntryMsg e = data(i, v, slot(S, i));
        get(forged.streamReplica().write(e, List.of(new StreamReplica.Slot(S, i)), true));
      }
      ChainReportMsg r = verify(forged, 9, pinned);
      assertThat(r.getDamagedList()).isEmpty();
      assertThat(r.getPin()).isEqualTo("MISMATCH");
      assertThat(verify(forged, 3, null).getPin()).isEqualTo("NONE");
    }
  }

  @Test
  void aPinnedHeadChecksAfterTrimsRestartsAndCompaction() throws Exception {
    List<LogEntryMsg> entries;
    byte[] pinned;
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      entries = write(store, 60);
      pinned = head(store, 59).getHead().toByteArray();
      get(store.streamReplica().trim(S, 30));
      assertThat(verify(store, 59, pinned).getPin()).isEqualTo("MATCH");
      assertThat(verify(store, 29, expectedHead(entries, 29)).getPin()).isEqualTo("MATCH");
      assertThat(verify(store, 12, expectedHead(entries, 12)).getPin()).isEqualTo("TRIMMED");
      store.compact(0.99);
    }
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      ChainReportMsg r = verify(store, 59, pinned);
      assertThat(r.getAnchored()).isTrue();
      assertThat(r.getDamagedList()).isEmpty();
      assertThat(r.getPin()).isEqualTo("MATCH");
      get(store.streamReplica().trim(S, 45));
      store.compact(0.99);
    }
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      assertThat(verify(store, 59, pinned).getPin()).isEqualTo("MATCH");
      assertThat(head(store, -1).getHead().toByteArray()).isEqualTo(expectedHead(entries, 59));
    }
  }

  @Test
  void aReplicaRebuiltFromAnotherTakesItsAnchorAndItsHeads(@TempDir Path other) throws IOException {
    try (ReplicaStore source = ReplicaStore.open(small(dir));
        ReplicaStore rebuilt = ReplicaStore.open(small(other))) {
      List<LogEntryMsg> entries = write(source, 30);
      get(source.streamReplica().trim(S, 10));
      var tail =
          get(source
                  .streamReplica()
                  .tail(
                      io.vcorfu.protocol.proto.StreamTailRequest.newBuilder()
                          .addStreams(S.toMsg())
                          .build()))
              .getTails(0);
      get(
          rebuilt.adoptTrimMark(
              S,
              tail.getTrimMark(),
              tail.getTrimFloorGlobal(),
              tail.getTrimAnchor().toByteArray()));
      List<ReadResult> copied = get(source.streamReplica().read(S, 10, 29));
      assertThat(copied).allMatch(r -> !r.getDigest().isEmpty());
      get(rebuilt.install(S, copied, new ArrayList<>()));
      assertThat(head(rebuilt, -1).getHead().toByteArray()).isEqualTo(expectedHead(entries, 29));
      assertThat(head(rebuilt, 29).getHead()).isEqualTo(head(source, 29).getHead());
    }
  }

  @Test
  void aCopyThatDoesNotMatchItsSourcesDigestIsRefused() throws IOException {
    try (ReplicaStore store = ReplicaStore.open(small(dir))) {
      LogEntryMsg good = data(0, value(0), slot(S, 0));
      LogEntryMsg altered = data(1, "altered", slot(S, 1));
      byte[] claimed = ChainDigests.ofEntry(data(1, value(1), slot(S, 1)).toByteArray());
      List<ReadResult> copied =
          List.of(
              committed(0, good, ChainDigests.ofEntry(good.toByteArray())),
              committed(1, altered, claimed));
      List<Long> refused = new ArrayList<>();
      get(store.install(S, copied, refused));
      assertThat(refused).containsExactly(1L);
      List<ReadResult> held = get(store.streamReplica().read(S, 0, 1));
      assertThat(held.get(0).getStatus()).isEqualTo(ReadResult.Status.COMMITTED);
      assertThat(held.get(1).getStatus()).isEqualTo(ReadResult.Status.EMPTY);
    }
  }

  private static ReadResult committed(long address, LogEntryMsg entry, byte[] digest) {
    return ReadResult.newBuilder()
        .setAddress(address)
        .setStatus(ReadResult.Status.COMMITTED)
        .setEntry(entry)
        .setDigest(ByteString.copyFrom(digest))
        .build();
  }

  /** Flips the byte after {@code marker} in the one segment file holding it. */
  private static void flip(Path dir, byte[] marker) throws IOException {
    List<Path> segments;
    try (Stream<Path> files = Files.list(dir)) {
      segments = files.filter(p -> p.getFileName().toString().endsWith(".log")).toList();
    }
    int flipped = 0;
    for (Path seg : segments) {
      byte[] bytes = Files.readAllBytes(seg);
      int at = indexOf(bytes, marker);
      if (at >= 0) {
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
          f.seek(at + marker.length);
          f.write(bytes[at + marker.length] ^ 0x01);
        }
        flipped++;
      }
    }
    assertThat(flipped).as("segment files holding the marker").isEqualTo(1);
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length < hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
