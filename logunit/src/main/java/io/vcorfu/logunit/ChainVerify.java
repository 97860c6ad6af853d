package io.vcorfu.logunit;

import io.vcorfu.logunit.internal.ChainIndex;
import io.vcorfu.logunit.internal.IndexedRecord;
import io.vcorfu.logunit.internal.StorageEngine;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainReportMsg;
import io.vcorfu.protocol.proto.DamagedSlot;
import io.vcorfu.protocol.proto.VerifyRequest;
import io.vcorfu.protocol.proto.VerifyResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers {@code VerifyRequest}s: checks a stream, or everything a node stores, against the digests
 * its replicas computed when they stored each entry, and gives chain heads (see {@link
 * ChainDigests}).
 *
 * <p>What a check proves: every record whose bytes digest to the digest stored beside them is as it
 * was written, and a chain head computed from those digests that equals a head a client pinned
 * proves every position up to it unchanged, since the pin. An altered byte of an entry is reported
 * with its address; digests altered to match altered bytes change the head, so a pinned head, or
 * another replica's head at the same position, tells.
 *
 * <p>Full checks read every record and run one at a time per node on their own thread; head-only
 * answers read nothing from disk and run on the common pool; neither runs on an event loop.
 */
final class ChainVerify {
  private static final Logger LOG = LoggerFactory.getLogger(ChainVerify.class);

  /** Addresses a page of a check looks up under the engine's monitor at once. */
  private static final int PAGE = 4096;

  /** Damaged addresses one report lists at most. */
  static final int MAX_DAMAGED = 1000;

  private static final ExecutorService CHECKS =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "vcorfu-verify");
            t.setDaemon(true);
            return t;
          });

  private ChainVerify() {}

  /** Answers {@code request} over {@code engine}. */
  static CompletableFuture<VerifyResponse> answer(StorageEngine engine, VerifyRequest request) {
    if (!request.getAll() && !request.hasStream()) {
      return CompletableFuture.failedFuture(
          new BadRequestException("A verify request names a stream, or asks for all."));
    }
    if (!request.getPinHash().isEmpty() && request.getPinHash().size() != ChainDigests.LENGTH) {
      return CompletableFuture.failedFuture(
          new BadRequestException(
              "A pinned chain head is 32 bytes, not " + request.getPinHash().size()));
    }
    // Never on the event loop: a first head of a long stream folds every position since its
    // anchor, and a full check reads every record.
    return CompletableFuture.supplyAsync(
        () -> run(engine, request),
        request.getHeadOnly() ? java.util.concurrent.ForkJoinPool.commonPool() : CHECKS);
  }

  private static VerifyResponse run(StorageEngine engine, VerifyRequest request) {
    List<StreamId> namespaces = new ArrayList<>();
    if (request.getAll()) {
      namespaces.addAll(engine.namespaces());
      namespaces.removeIf(io.vcorfu.logunit.internal.KeptHoles::reserved);
      namespaces.sort(null);
      namespaces.add(0, LogReplica.LOG);
    } else {
      namespaces.add(StreamId.fromMsg(request.getStream()));
    }
    VerifyResponse.Builder out = VerifyResponse.newBuilder();
    for (StreamId ns : namespaces) {
      out.addReports(report(engine, ns, request));
    }
    return out.build();
  }

  private static ChainReportMsg report(StorageEngine engine, StreamId ns, VerifyRequest request) {
    boolean log = ns.equals(LogReplica.LOG);
    boolean pinned = !request.getPinHash().isEmpty();
    long pinAt = pinned || request.getHeadOnly() ? request.getPinPosition() : -1;
    long trim;
    long highest;
    ChainIndex.Span span;
    synchronized (engine) {
      trim = engine.trimMark(ns);
      highest = engine.maxAddress(ns);
      long limit = request.getHeadOnly() && pinAt >= 0 ? pinAt : Long.MAX_VALUE;
      span = ChainIndex.span(engine, ns, limit, !request.getHeadOnly());
    }
    ChainReportMsg.Builder r =
        ChainReportMsg.newBuilder().setTrimMark(trim).setHighest(highest).setPin("NONE");
    if (!log) {
      r.setStream(ns.toMsg());
    }
    if (!request.getHeadOnly()) {
      check(engine, ns, trim, highest, r);
    }
    if (span == null) {
      // Never held here: the chain is its seed.
      return r.setAnchored(true)
          .setHeadPosition(-1)
          .setHead(bytes(ChainDigests.seed(ns)))
          .setStop(ChainIndex.Stop.END.name())
          .setPin(pinned ? "NOT_REACHED" : "NONE")
          .build();
    }
    byte[] head = span.fold();
    r.setAnchored(span.start() != null).setHeadPosition(span.last()).setStop(span.stop().name());
    if (head != null) {
      r.setHead(bytes(head));
      ChainIndex.cache(engine, ns, span.last(), head, span.trimMark());
    }
    if (pinned) {
      r.setPin(pinCheck(span, pinAt, request.getPinHash().toByteArray()));
    }
    return r.build();
  }

  private static String pinCheck(ChainIndex.Span span, long at, byte[] pinned) {
    if (at < span.trimMark() - 1) {
      return "TRIMMED";
    }
    if (span.start() == null) {
      return "UNANCHORED";
    }
    if (at > span.last()) {
      return "NOT_REACHED";
    }
    return ChainDigests.same(span.foldTo(at), pinned) ? "MATCH" : "MISMATCH";
  }

  /** Digests every DATA record of {@code ns} again and lists those that differ. */
  private static void check(
      StorageEngine engine, StreamId ns, long trim, long highest, ChainReportMsg.Builder r) {
    long checked = 0;
    for (long a = Math.max(0, trim); a <= highest; a += PAGE) {
      List<IndexedRecord> page = new ArrayList<>(PAGE);
      synchronized (engine) {
        for (long p = a; p <= Math.min(highest, a + PAGE - 1); p++) {
          IndexedRecord rec = engine.lookup(ns, p);
          if (rec != null && !rec.hole()) {
            page.add(rec);
          }
        }
      }
      engine.barrierFor(ns, false).join();
      for (IndexedRecord rec : page) {
        String damage;
        try {
          byte[] bytes = engine.load(ns, rec);
          if (bytes == null) {
            continue; // trimmed meanwhile
          }
          checked++;
          if (rec.digest() == null) {
            continue; // stored before digests were: nothing to check against
          }
          if (ChainDigests.same(ChainDigests.ofEntry(bytes), rec.digest())) {
            continue;
          }
          damage = "its bytes do not match the digest stored when it was written";
        } catch (RuntimeException e) {
          damage = "its bytes cannot be read: " + e.getMessage();
        }
        LOG.warn(
            "Verify: {} address {}: {}",
            ns.equals(LogReplica.LOG) ? "the log" : "stream " + ns,
            rec.address(),
            damage);
        if (r.getDamagedCount() < MAX_DAMAGED) {
          r.addDamaged(DamagedSlot.newBuilder().setAddress(rec.address()).setReason(damage));
        }
      }
    }
    r.setChecked(checked);
  }

  private static com.google.protobuf.ByteString bytes(byte[] b) {
    return com.google.protobuf.ByteString.copyFrom(b);
  }
}
