package io.vcorfu.client.model;

import static io.vcorfu.client.model.ModelState.ADDR;
import static io.vcorfu.client.model.ModelState.DATA;
import static io.vcorfu.client.model.ModelState.DATA_COMMITTED;
import static io.vcorfu.client.model.ModelState.DPH;
import static io.vcorfu.client.model.ModelState.EMPTY;
import static io.vcorfu.client.model.ModelState.HOLE;
import static io.vcorfu.client.model.ModelState.HOLE_COMMITTED;
import static io.vcorfu.client.model.ModelState.IDX;
import static io.vcorfu.client.model.ModelState.LEFT;
import static io.vcorfu.client.model.ModelState.ORIGIN;
import static io.vcorfu.client.model.ModelState.PH;
import static io.vcorfu.client.model.ModelState.PM;
import static io.vcorfu.client.model.ModelState.SX;
import static io.vcorfu.client.model.ModelState.TRIMMED;
import static io.vcorfu.client.model.ModelState.X;
import static io.vcorfu.client.model.ModelState.X0;

import io.vcorfu.client.model.Decisions.Outcome;
import io.vcorfu.client.model.Replicas.Reach;

/**
 * The readers and the trimmer, one replica request per step.
 *
 * <p><b>Reader</b> ({@code RepairingReader}): reads a slot at its chain's last replica. Committed
 * data or hole: returned. Uncommitted data: decided ({@code ChainWriter.drive}), and if aborted the
 * slot read is abort-filled and returned. Empty or an uncommitted hole: a log slot is filled head
 * first through the log chain (committed holes; an entry found on the way is driven); a stream slot
 * is decided by the log first (the same read of the log) and, if the log holds a hole, filled head
 * first through the stream chain (an entry the log holds committed is driven to the stream); a log
 * slot found trimmed ends the read with nothing ({@code StreamSlots.repair} fails with the trim),
 * or, under {@code LogTrim.DECIDES_AND_KEEPS_HOLES}, lets the stream slot be filled head first. A
 * stream whose chain is empty is read from the log. A read that meets a removed node starts again.
 * A reader returning data or a hole records the observation; a trimmed slot returns nothing.
 *
 * <p><b>Trimmer</b> ({@code ClusterStreamLog.trimStream}): reads (settles) the trimmed stream's
 * slot as a reader does, commits every copy but the decider's when that stream's chain decides the
 * entry ({@code RepairingReader.settleBelow}, {@code commitEveryCopy}), then trims the chain's
 * replicas, the last first. A failed step (a removed node, a commit of an empty copy) starts the
 * settling again.
 */
final class Readers {
  static final int R_IDLE = 0;
  static final int R_READ = 1;
  static final int R_FILL = 2;
  static final int R_DECIDING = 3;
  static final int R_SETTLE = 4;
  static final int R_TRIM_COMMIT = 5;
  static final int R_TRIM = 6;
  static final int R_DONE = 7;

  /**
   * A coverage mark beside the {@link Decisions} phases: a reader fills a stream chain while every
   * log copy of the address is trimmed.
   */
  static final int FILL_OVER_TRIMMED_LOG = 15;

  private enum Result {
    DATA,
    HOLE,
    NOTHING
  }

  private final ModelState m;
  private final ModelConfig config;
  private final Replicas replicas;
  private final Decisions decisions;
  private final Processes processes;

  Readers(ModelState m, Decisions decisions, Processes processes) {
    this.m = m;
    this.config = m.config();
    this.replicas = new Replicas(m);
    this.decisions = decisions;
    this.processes = processes;
  }

  void init(byte[] s, int p) {
    if (config.isTrimmer(p)) {
      m.set(s, p, ADDR, 0);
      m.set(s, p, X0, config.trimStream());
      begin(s, p);
    } else {
      m.set(s, p, PH, R_IDLE);
      m.set(s, p, LEFT, config.readsPerReader());
    }
  }

  void step(byte[] s, int p, Successors out) {
    switch (m.get(s, p, PH)) {
      case R_IDLE -> startRead(s, p, out);
      case R_READ -> read(s, p, out, null);
      case R_FILL -> fill(s, p, out);
      case R_DECIDING -> decisions.step(s, p, out);
      case R_SETTLE -> settle(s, p, out);
      case R_TRIM_COMMIT -> trimCommit(s, p, out);
      case R_TRIM -> trim(s, p, out);
      default -> {}
    }
  }

  /** A decision of {@code p} returned {@code outcome}. */
  void ended(byte[] n, int p, Outcome outcome) {
    switch (outcome) {
      case COMMITTED -> result(n, p, Result.DATA);
      case ABORTED -> m.set(n, p, PH, R_SETTLE);
      case TRIMMED -> result(n, p, Result.NOTHING);
      case FAILED -> begin(n, p);
    }
  }

  /** Clears the fields {@code p}'s phase never reads (see {@link Processes#canonical}). */
  void canonical(byte[] s, int p) {
    int phase = m.get(s, p, PH);
    if (phase == R_IDLE || phase == R_DONE) {
      for (int f = PM; f <= SX; f++) {
        if (f != LEFT) {
          m.set(s, p, f, 0);
        }
      }
    }
    if (phase != R_FILL && phase != R_TRIM_COMMIT && phase != R_TRIM) {
      m.set(s, p, PM, 0);
      m.set(s, p, IDX, 0);
    }
    if (phase != R_DECIDING && phase != R_SETTLE) {
      m.set(s, p, SX, 0);
    }
  }

  private void startRead(byte[] s, int p, Successors out) {
    int left = m.get(s, p, LEFT);
    if (left == 0) {
      return;
    }
    for (int a = 0; a < config.addresses(); a++) {
      for (int k = 0; k < config.chains(); k++) {
        byte[] n = s.clone();
        m.set(n, p, ADDR, a);
        m.set(n, p, X0, k);
        m.set(n, p, LEFT, left - 1);
        begin(n, p);
        int address = a;
        int chain = k;
        // Starting is invisible to everyone else: taken together with the first request.
        read(n, p, out, name(p) + " reads address " + address + " from " + config.chainName(chain));
      }
    }
  }

  /** (Re)starts the read of {@code p} from its chain, at the current layout. */
  private void begin(byte[] n, int p) {
    int x = m.get(n, p, X0);
    m.set(n, p, ORIGIN, 0);
    m.set(n, p, IDX, 0);
    m.set(n, p, DPH, Decisions.NONE);
    if (x > 0 && config.chain(x, ModelState.removed(n)).length == 0) {
      if (config.isTrimmer(p)) {
        m.set(n, p, PH, R_DONE); // no replica to trim: the trim is refused
        return;
      }
      x = 0; // the stream is read from the log while its chain is empty
    }
    m.set(n, p, X, x);
    m.set(n, p, PH, R_READ);
  }

  /** The read of {@code p}'s chain's last replica ({@code started}: the read begins with it). */
  private void read(byte[] s, int p, Successors out, String started) {
    String from = started == null ? name(p) : started + ":";
    int x = m.get(s, p, X);
    int[] chain = config.chain(x, ModelState.removed(s));
    if (chain.length == 0) {
      byte[] n = s.clone();
      begin(n, p);
      out.add(n, () -> from + " the chain is empty now; reads again");
      return;
    }
    int c = config.copy(x, chain[chain.length - 1]);
    if (replicas.reach(s, c) != Reach.OK) {
      return;
    }
    int a = m.get(s, p, ADDR);
    byte held = m.slot(s, a, c);
    byte[] n = s.clone();
    switch (held) {
      case DATA_COMMITTED -> result(n, p, Result.DATA);
      case HOLE_COMMITTED -> result(n, p, Result.HOLE);
      case TRIMMED -> result(n, p, Result.NOTHING);
      case DATA -> decide(n, p, x);
      case EMPTY, HOLE -> {
        if (x > 0) {
          m.set(n, p, ORIGIN, x); // a stream slot: the log decides first
          m.set(n, p, X, 0);
        } else {
          walk(n, p, 0);
        }
      }
      default -> throw new IllegalStateException("slot " + held);
    }
    out.add(n, () -> from + " reads " + config.copyName(c) + ": " + ModelState.slotName(held));
  }

  /** Starts a head-first fill of chain {@code x} at the current layout. */
  private void walk(byte[] n, int p, int x) {
    m.set(n, p, X, x);
    m.set(n, p, IDX, 0);
    m.set(n, p, PM, ModelState.removed(n));
    m.set(n, p, PH, R_FILL);
  }

  /**
   * The state after {@code p}'s request ({@code what}) to copy {@code c}, or null: no step while
   * its node is crashed (the request waits), and {@code p} begun again (added to {@code out}, told
   * {@code again}) if the node was removed.
   */
  private byte[] reached(byte[] s, int p, int c, String what, String again, Successors out) {
    Reach r = replicas.reach(s, c);
    if (r == Reach.BLOCKED) {
      return null;
    }
    byte[] n = s.clone();
    if (r == Reach.GONE) {
      begin(n, p);
      out.add(
          n, () -> name(p) + " " + what + " " + config.copyName(c) + ": node removed; " + again);
      return null;
    }
    return n;
  }

  private void fill(byte[] s, int p, Successors out) {
    int x = m.get(s, p, X);
    int[] chain = config.chain(x, m.get(s, p, PM));
    int i = m.get(s, p, IDX);
    int c = config.copy(x, chain[i]);
    byte[] n = reached(s, p, c, "fills", "reads again", out);
    if (n == null) {
      return;
    }
    byte held = replicas.fill(n, m.get(s, p, ADDR), c, false, true, false);
    switch (held) {
      case DATA_COMMITTED -> result(n, p, Result.DATA);
      case DATA -> decide(n, p, x);
      case TRIMMED -> result(n, p, Result.NOTHING);
      case HOLE_COMMITTED -> {
        if (i + 1 < chain.length) {
          m.set(n, p, IDX, i + 1);
        } else {
          result(n, p, Result.HOLE);
        }
      }
      default -> throw new IllegalStateException("a committing fill left " + held);
    }
    out.add(n, () -> name(p) + " fills " + config.copyName(c) + ": " + ModelState.slotName(held));
  }

  private void decide(byte[] n, int p, int settleChain) {
    m.set(n, p, SX, settleChain);
    m.set(n, p, PH, R_DECIDING);
    decisions.start(n, p, true);
  }

  /** After an abort: the slot read (its chain's last replica, now) is abort-filled and returned. */
  private void settle(byte[] s, int p, Successors out) {
    int sx = m.get(s, p, SX);
    int[] chain = config.chain(sx, ModelState.removed(s));
    byte[] n = s.clone();
    if (chain.length == 0) {
      result(n, p, Result.HOLE);
      out.add(n, () -> name(p) + ": the stream's chain is empty; the slot is a hole");
      return;
    }
    int c = config.copy(sx, chain[chain.length - 1]);
    if (replicas.reach(s, c) != Reach.OK) {
      return;
    }
    byte held = replicas.fill(n, m.get(s, p, ADDR), c, true, true, false);
    result(
        n,
        p,
        held == HOLE_COMMITTED
            ? Result.HOLE
            : held == DATA_COMMITTED ? Result.DATA : Result.NOTHING);
    out.add(
        n,
        () ->
            name(p)
                + " abort-fills the slot read, "
                + config.copyName(c)
                + ": "
                + ModelState.slotName(held));
  }

  /** What the read (or one of its stages) found. */
  private void result(byte[] n, int p, Result r) {
    int origin = m.get(n, p, ORIGIN);
    if (origin > 0) {
      m.set(n, p, ORIGIN, 0);
      m.set(n, p, X, origin);
      switch (r) {
        case DATA -> decide(n, p, origin); // the log holds the entry: drive it to the stream
        case HOLE -> {
          if (config.chain(origin, ModelState.removed(n)).length > 0) {
            walk(n, p, origin); // the log holds a hole: fill the stream head first
          } else {
            result(n, p, Result.HOLE); // no stream replica left: the log alone decides
          }
        }
        case NOTHING -> {
          if (config.logTrim() == ModelConfig.LogTrim.DECIDES_AND_KEEPS_HOLES
              && config.chain(origin, ModelState.removed(n)).length > 0) {
            walk(n, p, origin); // the log was decided, then trimmed: fill the stream head first
          } else {
            m.set(n, p, PH, config.isTrimmer(p) ? R_DONE : R_IDLE);
          }
        }
      }
      return;
    }
    if (r != Result.NOTHING) {
      m.observe(n, m.get(n, p, ADDR), r == Result.DATA);
    }
    if (!config.isTrimmer(p)) {
      m.set(n, p, PH, R_IDLE);
      return;
    }
    int removed = ModelState.removed(n);
    m.set(n, p, PM, removed);
    m.set(n, p, IDX, 0);
    boolean decides = config.decidingChain(removed) == config.trimStream();
    if (config.chain(config.trimStream(), removed).length == 0) {
      m.set(n, p, PH, R_DONE); // no replica left to trim
    } else if (r == Result.DATA && decides && decisions.plans().plan(removed).length > 1) {
      m.set(n, p, PH, R_TRIM_COMMIT);
    } else {
      m.set(n, p, PH, R_TRIM);
    }
  }

  /** commitEveryCopy: every copy before the decider, in plan order, each acknowledged. */
  private void trimCommit(byte[] s, int p, Successors out) {
    int[] plan = decisions.plans().plan(m.get(s, p, PM));
    int i = m.get(s, p, IDX);
    int c = plan[i];
    Reach r = replicas.reach(s, c);
    if (r == Reach.BLOCKED) {
      return;
    }
    byte[] n = s.clone();
    if (r == Reach.GONE || !replicas.commit(n, m.get(s, p, ADDR), c)) {
      begin(n, p);
      out.add(n, () -> name(p) + " commits " + config.copyName(c) + ": failed; settles again");
      return;
    }
    m.set(n, p, IDX, i + 1);
    if (i + 1 == plan.length - 1) {
      m.set(n, p, PH, R_TRIM);
      m.set(n, p, IDX, 0);
    }
    out.add(n, () -> name(p) + " commits " + config.copyName(c) + " (settling the stream)");
  }

  /** The trim itself: the chain's last replica first, then the others. */
  private void trim(byte[] s, int p, Successors out) {
    int x = config.trimStream();
    int[] chain = config.chain(x, m.get(s, p, PM));
    int i = m.get(s, p, IDX);
    int c = config.copy(x, chain[i == 0 ? chain.length - 1 : i - 1]);
    byte[] n = reached(s, p, c, "trims", "trims again", out);
    if (n == null) {
      return;
    }
    replicas.trim(n, m.get(s, p, ADDR), c);
    m.set(n, p, IDX, i + 1);
    if (i + 1 == chain.length) {
      m.set(n, p, PH, R_DONE);
    }
    out.add(n, () -> name(p) + " trims " + config.copyName(c));
  }

  private String name(int p) {
    return processes.name(p);
  }

  /** True if reader (or trimmer) {@code p} fills, settles or trims a slot. */
  boolean repairing(byte[] s, int p) {
    int ph = m.get(s, p, PH);
    return ph == R_FILL
        || ph == R_SETTLE
        || ph == R_DECIDING
        || ph == R_TRIM_COMMIT
        || ph == R_TRIM;
  }

  /**
   * True if reader {@code p} fills a stream chain while every log copy of its address is trimmed.
   */
  boolean fillsAStreamOverATrimmedLog(byte[] s, int p) {
    if (config.isWriter(p) || m.get(s, p, PH) != R_FILL || m.get(s, p, X) == 0) {
      return false;
    }
    int a = m.get(s, p, ADDR);
    for (int node : config.logChain()) {
      if (m.slot(s, a, config.copy(0, node)) != ModelState.TRIMMED) {
        return false;
      }
    }
    return true;
  }
}
