package io.vcorfu.server.cluster;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.layout.Layout;
import io.vcorfu.layout.LayoutChanges;
import io.vcorfu.layout.LayoutNotFoundException;
import io.vcorfu.layout.Versioned;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node that returns after the manager removed it copies before it serves again: the streams
 * of the chains the manager will join it to ({@link LayoutChanges#withRebuilding} of the agreed
 * layout), read through their deciders while the node is still out of every chain. Meanwhile the
 * chains' other replicas carry the foreground alone, and the node's copy and its JVM's warm-up do
 * not gate any write; once it joins, its {@link Rebuilder} finds those pages held and copies only
 * what was written since (and the closed log segments). It copies in passes, each from the streams'
 * tails when it starts, so that what was written during a long pass is copied before the join too
 * ({@link #anotherPass}).
 *
 * <p>Invariant: it installs what a {@link Rebuilder} installs ({@link RangeCopy}): only decisions,
 * read through the chains' deciders, and only where this node holds no committed record. A decision
 * is what every reader of the slot reads, in any layout, so whatever layout the node joins later
 * (the one foreseen here or another, if the cluster changed meanwhile) it holds nothing a reader of
 * its chains would not read, and the rebuild after the join stays idempotent. It takes no trim mark
 * or pin from the chains: the rebuild after the join takes both, in order ({@link RebuildScope}).
 *
 * <p>It never keeps a node from starting: it copies only when the agreed layout lists the node as
 * removed (not retired) with chains short of a replica that the manager would join it to, stops at
 * its time limit (after the page in hand and its pacing), and a failure only logs (the rebuild
 * after the join copies what this did not). It is paced as a rebuild is, by the foreground's 99th
 * percentile on the serving nodes.
 */
public final class PreJoinCopy {
  private static final Logger LOG = LoggerFactory.getLogger(PreJoinCopy.class);

  /** How long the start waits for ZooKeeper's answer before it goes on without a copy. */
  static final Duration LAYOUT_WAIT = Duration.ofSeconds(3);

  /** The most passes of a copy (see {@link #anotherPass}). */
  static final int MAX_PASSES = 4;

  /** A pass at least this long is followed by another (see {@link #anotherPass}). */
  static final Duration PASS_AGAIN_AFTER = Duration.ofSeconds(1);

  /** What a copy did: slots and bytes installed, its duration, and why it stopped short, if so. */
  public record Result(long copied, long bytes, long millis, int passes, String stoppedBecause) {
    static final Result NONE = new Result(0, 0, 0, 0, "");
  }

  private PreJoinCopy() {}

  /**
   * Copies, when the agreed layout says {@code self} was removed and would be joined again, what
   * its chains hold that it will rebuild; returns what it did ({@link Result#NONE} when nothing was
   * due).
   */
  public static Result run(
      Endpoint self, ReplicaStore store, Transport transport, ClusterConfig config) {
    if (config.preJoinCopyLimit().isZero()) {
      return Result.NONE;
    }
    Layout agreed;
    try (ZkLayoutStore zk =
        ZkLayoutStore.connect(
            config.zookeeper(),
            config.name(),
            config.sessionTimeout(),
            config.zookeeperAuth(),
            config.zookeeperTls())) {
      Versioned<Layout> v = zk.get().get(LAYOUT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      agreed = v.value();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Result.NONE;
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      if (!(cause instanceof LayoutNotFoundException)) {
        // One line, no stack trace: ZooKeeper's absence is said again by the node's own session.
        String why =
            e instanceof TimeoutException
                ? "ZooKeeper did not answer within " + LAYOUT_WAIT.toSeconds() + " s"
                : String.valueOf(cause);
        LOG.info("node {}: no copy before joining (the agreed layout was not read: {})", self, why);
      }
      return Result.NONE;
    }
    Layout foreseen = foreseenJoin(agreed, self);
    if (foreseen == null) {
      return Result.NONE;
    }
    return copy(self, store, transport, config, agreed, foreseen);
  }

  /**
   * The layout the manager would make to join {@code self} to {@code agreed}'s short chains, or
   * null when it would not join it now: it is not removed, it left on request, a spare would join
   * first, or a stream chain with no replica is taken up first.
   */
  static Layout foreseenJoin(Layout agreed, Endpoint self) {
    if (!agreed.removed().contains(self)
        || agreed.retired().contains(self)
        || !agreed.spares().isEmpty()
        || !LayoutChanges.emptyStreamChains(agreed).isEmpty()) {
      return null;
    }
    try {
      // The new segment's start is the sealed tail's successor at the join; only the chains the
      // node joins matter here.
      return LayoutChanges.withRebuilding(agreed, self, agreed.currentSegment().start() + 1);
    } catch (IllegalArgumentException notNow) {
      return null;
    }
  }

  /**
   * The copy's time limit: the configured one, but where another node of the cluster could take the
   * short chains' place (more nodes than R), at most half the delay before the manager heals onto
   * such a member ({@link ClusterConfig#memberHealDelay}), so that the returning node answers while
   * it is still the one the manager joins (it copies only what it missed, where a member would copy
   * the whole chain).
   */
  static Duration limit(ClusterConfig config, Layout agreed) {
    Duration limit = config.preJoinCopyLimit();
    if (agreed.allServers().size() >= agreed.replication()) {
      Duration half = config.memberHealDelay().dividedBy(2);
      if (half.compareTo(limit) < 0) {
        limit = half;
      }
    }
    return limit;
  }

  /**
   * Whether the copy makes another pass after pass {@code pass} took {@code tookNanos} (the one
   * before it {@code previousNanos}): the chains took writes in meanwhile, which the rebuild after
   * the join would otherwise copy while the node is in every write's path. Another pass runs while
   * a pass took long enough for that to matter ({@link #PASS_AGAIN_AFTER}) and was shorter than the
   * one before (the copy outruns the writes), at most {@link #MAX_PASSES} in all.
   */
  static boolean anotherPass(int pass, long tookNanos, long previousNanos) {
    return pass < MAX_PASSES
        && tookNanos >= PASS_AGAIN_AFTER.toNanos()
        && tookNanos < previousNanos;
  }

  /** One pass: every stream of the foreseen chains, from its chain's trim mark to its tail now. */
  private static void copyPass(
      RebuildScope scope, RangeCopy ranges, RebuildRun run, Endpoint self, Layout agreed, int pass)
      throws InterruptedException {
    Map<StreamId, long[]> streams = scope.streamsToCopyBeforeJoining();
    if (pass == 1) {
      LOG.info(
          "node {} was removed at epoch {} or before; before it serves, it copies {} streams of the"
              + " chains it would rejoin",
          self,
          agreed.epoch(),
          streams.size());
    }
    List<Callable<Void>> tasks = new ArrayList<>();
    for (Map.Entry<StreamId, long[]> e : streams.entrySet()) {
      tasks.add(
          () -> {
            ranges.copy(e.getKey(), e.getValue()[0], e.getValue()[1], null, 0);
            return null;
          });
    }
    Rebuilder.runAll(
        tasks,
        "pre-join-copy-" + self,
        () ->
            LOG.info(
                "node {} copying before it joins: {} slots ({} bytes) so far",
                self,
                run.copied.get(),
                run.bytes.get()));
  }

  private static Result copy(
      Endpoint self,
      ReplicaStore store,
      Transport transport,
      ClusterConfig config,
      Layout agreed,
      Layout foreseen) {
    long started = System.nanoTime();
    Duration limit = limit(config, agreed);
    if (limit.isZero()) {
      return Result.NONE;
    }
    Set<Endpoint> serving = agreed.allServers();
    long boundMicros = TimeUnit.NANOSECONDS.toMicros(config.rebuildForegroundP99().toNanos());
    RebuildRun run =
        new RebuildRun(
            foreseen.epoch(),
            foreseen.epoch(),
            new RebuildPacer(config.rebuildBytesPerSecond(), boundMicros, started));
    ScheduledExecutorService timer =
        Executors.newSingleThreadScheduledExecutor(Rebuilder.daemon("pre-join-copy-" + self));
    Runnable stopPacing = boundMicros > 0 ? run.pacer.follow(serving, transport, timer) : () -> {};
    String stoppedBecause = "";
    int passes = 0;
    try (ClusterStreamLog log =
        ClusterStreamLog.connect(transport, List.copyOf(serving), StreamLogOptions.defaults())) {
      timer.schedule(
          () -> {
            run.stopped = true;
          },
          limit.toMillis(),
          TimeUnit.MILLISECONDS);
      RebuildScope scope = new RebuildScope(self, store, foreseen, log);
      RangeCopy ranges = new RangeCopy(store, log, foreseen, run, self);
      long previousNanos = Long.MAX_VALUE;
      for (int pass = 1; ; pass++) {
        passes = pass;
        long passStarted = System.nanoTime();
        long bytesBefore = run.bytes.get();
        copyPass(scope, ranges, run, self, agreed, pass);
        long took = System.nanoTime() - passStarted;
        if (!anotherPass(pass, took, previousNanos)) {
          break;
        }
        LOG.info(
            "node {}: pass {} of its copy before joining took {} ms ({} bytes); it copies again"
                + " what the chains took in meanwhile",
            self,
            pass,
            TimeUnit.NANOSECONDS.toMillis(took),
            run.bytes.get() - bytesBefore);
        previousNanos = took;
      }
    } catch (InterruptedException e) {
      if (run.stopped) {
        stoppedBecause = "its time limit of " + limit.toMillis() + " ms passed";
      } else {
        Thread.currentThread().interrupt();
        stoppedBecause = "interrupted";
      }
    } catch (RuntimeException e) {
      stoppedBecause = String.valueOf(e);
    } finally {
      stopPacing.run();
      timer.shutdownNow();
    }
    Result r =
        new Result(
            run.copied.get(),
            run.bytes.get(),
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
            passes,
            stoppedBecause);
    LOG.info(
        "node {} copied {} slots ({} bytes) in {} ms before joining ({}){}",
        self,
        r.copied(),
        r.bytes(),
        r.millis(),
        r.passes() == 1 ? "1 pass" : r.passes() + " passes",
        stoppedBecause.isEmpty()
            ? ""
            : "; it stopped short ("
                + stoppedBecause
                + "): the rebuild after the join copies the rest");
    return r;
  }
}
