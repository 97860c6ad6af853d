package io.vcorfu.server;

import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.SpaceReport;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.proto.CompactRequest;
import io.vcorfu.protocol.proto.CompactResponse;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.StorageSpace;
import io.vcorfu.protocol.proto.VerifyRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** What a node answers about its storage: the space it uses, and compaction on request. */
final class NodeStorage {
  private NodeStorage() {}

  /**
   * How {@code store} uses its disk and what the log keeps for its trimmed streams; {@code copying}
   * while the node rebuilds or copies streams from the log (it cannot tell yet: 0); {@code alarm}
   * the disk-space alarm, or null. A node without storage answers an empty report.
   */
  static StorageSpace space(ReplicaStore store, boolean copying, DiskAlarm alarm) {
    StorageSpace.Builder b =
        StorageSpace.newBuilder()
            .setLogNeededFrom(Long.MAX_VALUE)
            .setLogTail(-1)
            .setCompacting(-1)
            .setFreeDiskBytes(-1);
    if (store == null) {
      return b.build();
    }
    long[] counts = new long[2];
    long needed = store.logNeededFrom(counts);
    long[] log = store.logTailAndTrimMark();
    SpaceReport space = store.space();
    b.setCopying(copying)
        .setLogNeededFrom(copying ? 0 : needed)
        .setLogTail(log[0])
        .setLogTrimMark(log[1])
        .setLogKeptHoles(log[2])
        .setFileBytes(space.fileBytes())
        .setLiveBytes(space.liveBytes())
        .setSegments(space.segments())
        .setSegmentsCompacted(space.segmentsCompacted())
        .setCompactionCopiedBytes(space.compactionCopiedBytes())
        .setCompactionReclaimedBytes(space.compactionReclaimedBytes())
        .setCompacting(space.compacting())
        .setStreams(counts[0])
        .setTrimmedStreams(counts[1]);
    if (alarm != null) {
      b.setFreeDiskBytes(alarm.freeBytes()).setDiskAlarm(alarm.raised());
    }
    return b.build();
  }

  /**
   * Compacts now every sealed segment of {@code store} whose live bytes are below {@code
   * request.below} of its length (0: half), on a thread of its own; answers once done (BadRequest
   * for a share outside (0, 1)).
   */
  static CompletableFuture<Response> compact(ReplicaStore store, CompactRequest request) {
    double below = request.getBelow() == 0 ? 0.5 : request.getBelow();
    if (!(below > 0 && below < 1)) {
      return CompletableFuture.failedFuture(
          new BadRequestException(
              "compaction applies below a share of live bytes between 0 and 1, not " + below));
    }
    if (store == null) {
      return CompletableFuture.completedFuture(
          Response.newBuilder().setCompact(CompactResponse.getDefaultInstance()).build());
    }
    return CompletableFuture.supplyAsync(
        () -> {
          long before = store.space().fileBytes();
          int compacted;
          try {
            compacted = store.compact(below);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
          }
          return Response.newBuilder()
              .setCompact(
                  CompactResponse.newBuilder()
                      .setSegmentsCompacted(compacted)
                      .setFileBytesBefore(before)
                      .setFileBytesAfter(store.space().fileBytes()))
              .build();
        });
  }

  /**
   * Checks {@code store} against the digests it stored, or answers a chain head (see {@code
   * VerifyRequest}).
   */
  static CompletableFuture<Response> verify(ReplicaStore store, VerifyRequest request) {
    if (store == null) {
      return CompletableFuture.failedFuture(
          new io.vcorfu.protocol.NotServingException("storage (this node stores nothing)"));
    }
    return store.verify(request).thenApply(v -> Response.newBuilder().setVerify(v).build());
  }
}
