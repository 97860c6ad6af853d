package io.vcorfu.client.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exhaustive model check of the write rules (issue 31, item 3): every interleaving of the events of
 * a small configuration is explored ({@link Explorer}, breadth first, each state once) and every
 * state is checked against four safety properties:
 *
 * <ul>
 *   <li><b>P1</b>: an acknowledged write is on every copy of the current layout (committed or
 *       committable; a trimmed copy counts), and is never read as a hole;
 *   <li><b>P2</b>: a slot a reader returned as a hole is never returned as data afterwards;
 *   <li><b>P3</b>: a slot a reader returned as data is never returned as a hole afterwards (one
 *       writer per address, so "other data" cannot arise);
 *   <li><b>P4</b>: an entry some copy holds committed is held by every copy of the current layout
 *       (what the sequencer node's lookup of a retried append rests on: its own log copy holding
 *       nothing means the entry is committed nowhere).
 * </ul>
 *
 * <p><b>What is modeled.</b> One entry per global address (1 or 2), written to the log chain and to
 * every stream chain (1 or 2, one stream each); a copy is one slot (chain, node), holding nothing,
 * data or a hole, each uncommitted or committed, or trimmed. Replica operations are atomic at their
 * replica and as the replicas do them ({@link Replicas}: write-once data writes, fills that keep or
 * abort, commits that leave holes alone, trims). Processes, one replica request per step: one
 * writer per address ({@link Processes}: the serial drive, or the parallel rule's messages, one per
 * node or one per copy, all in flight at once, a message to a crashed node lost; after a failure
 * the writer decides, concurrently with the readers), readers (one reading twice, or two reading
 * once) that read any address from any chain's last replica and repair as {@code RepairingReader}
 * does (decide uncommitted data, fill empty log slots head first, decide a stream's empty slot by
 * the log first, settle an abort), a trimmer that settles and trims one stream ({@link Readers}),
 * and the decisions they run ({@link Decisions}: drive, ask the decider, commit, finish missing
 * copies, abort last first, decide from the copies when the decider is trimmed). Faults ({@link
 * Transitions}): layout changes that remove a node (sealing every other node at once; the log chain
 * is never emptied, a stream chain may be, and then the log decides), crashes (the node's requests
 * wait), and the parallel rule's "fully replicated through X" mark. Requests to a removed node fail
 * and their process starts again; a decision otherwise goes on with the plan it began with, as
 * {@code EpochRpc} re-sends a refused request to the same node.
 *
 * <p><b>What is not.</b> Timing (repair waits, timeouts: any order is explored instead), message
 * loss other than to crashed or removed nodes, duplicate deliveries, node restarts with their data
 * and stale reads from removed nodes (leases), nodes joining or healing, token retries at new
 * addresses, several streams on one chain, the sequencer and its tails (an empty stream slot is
 * always below the stream's tail), and the log's own trim, but in the configurations {@link
 * ModelConfig#withLogTrim} makes (writers there may die). Readers are interchangeable: states that
 * differ only by which reader is which are explored once.
 *
 * <p>The rule sets ({@link RuleSet}): the serial chain (which the code ran before), the withdrawn
 * interleaved plan, the parallel rule (which the code runs with both fixes; data writes of a token
 * older than a seal refused, a decision's too), and both with the two fixes the model called for
 * (A: a decision whose plan is of an older epoch starts again; B: an abort's holes stay uncommitted
 * until the decider's hole is committed). Each run prints its state count and time; each
 * counterexample its trace (a shortest one). A counterexample test also explores again checking
 * only what clients saw (acknowledgements and what readers returned, not the replicas' slots), so
 * that the violation it shows is one a client sees. {@code -Dvcorfu.model.large=true} adds the
 * large configurations of {@link ModelConfigs}.
 */
class WritePathModelTest {
  private static final int LIMIT = 30_000_000;

  static Stream<ModelConfig> configurations() {
    return ModelConfigs.all().stream();
  }

  static Stream<ModelConfig> oneRemoval() {
    return ModelConfigs.all().stream().filter(c -> c.maxRemovals() <= 1);
  }

  /**
   * The rule {@code ChainWriter} runs (see {@code DecisionAcrossRemovalsTest} for the fixes, and
   * {@code ParallelCopiesTest} for every subset of copies a dead writer can leave, on real
   * replicas).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void theParallelRuleWithBothFixesKeepsEveryProperty(ModelConfig config) {
    Explorer.Result result = run(config, RuleSet.PARALLEL.fixed());

    assertThat(result.violation()).as(String.join("\n", result.trace())).isNull();
    assertExercised(config, result);
    assertThat(result.coverage().reached(Decisions.FINISH))
        .as("a decision found the entry at the decider and finished it")
        .isTrue();
    assertThat(result.coverage().reached(Decisions.ABORT_DATA))
        .as("a decision found a missing copy taken by a hole and aborted")
        .isTrue();
  }

  /** The rule {@code ChainWriter} ran before parallel copies, with both fixes. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("configurations")
  void theSerialRuleWithBothFixesKeepsEveryProperty(ModelConfig config) {
    Explorer.Result result = run(config, RuleSet.SERIAL.fixed());

    assertThat(result.violation()).as(String.join("\n", result.trace())).isNull();
    assertExercised(config, result);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("oneRemoval")
  void theUnfixedSerialRuleKeepsEveryPropertyThroughOneRemoval(ModelConfig config) {
    Explorer.Result result = run(config, RuleSet.SERIAL);

    assertThat(result.violation()).as(String.join("\n", result.trace())).isNull();
    assertExercised(config, result);
  }

  /**
   * The checker has teeth: the withdrawn plan writes a stream replica before the last log replica;
   * a removal leaves that stream replica the decider, the entry commits (P4 catches that first: a
   * copy of the current layout, a log replica, never received it) and is acknowledged while that
   * log replica never received it (P1, which clients see), where the serial plan, same
   * configuration, is safe.
   */
  @Test
  void theInterleavedPlanAcknowledgesAWriteALogReplicaNeverReceived() {
    Explorer.Result result = run(ModelConfigs.twoNodes(), RuleSet.INTERLEAVED);

    assertThat(result.violation()).startsWith("P4").contains("log@");
    assertClientsSeeIt(ModelConfigs.twoNodes(), RuleSet.INTERLEAVED);
    assertThat(run(ModelConfigs.twoNodes(), RuleSet.SERIAL).violation()).isNull();
  }

  /**
   * The serial rule without the fixes, two removals from a chain of three (within R - 1 failures):
   * a decision that began aborting goes on with its old plan after the decider is removed and
   * replaces the new decider's copy after another decision found the entry there; that one's commit
   * meets a hole, which a commit leaves as it is, and it reports the entry committed.
   */
  @Test
  void theUnfixedSerialRuleCommitsOnAHoleAfterTwoRemovalsOfThree() {
    Explorer.Result result = run(ModelConfigs.replicationThree(), RuleSet.SERIAL);

    assertThat(result.violation()).startsWith("P1");
    assertClientsSeeIt(ModelConfigs.replicationThree(), RuleSet.SERIAL);
    assertThat(run(ModelConfigs.replicationThree(), RuleSet.SERIAL.replanned()).violation())
        .isNull();
  }

  /**
   * The serial rule with fix A alone, when removals empty the deciding stream chain: an abort
   * replaced the log's last replica by a committed hole (read as a hole), then that node is removed
   * with the stream chain's last replica, and the log's remaining replica, still holding the entry,
   * decides it committed.
   */
  @Test
  void anEmptiedDecidingChainHandsTheDecisionToALogCopyTheAbortHadNotReached() {
    Explorer.Result result = run(ModelConfigs.twoRemovals(), RuleSet.SERIAL.replanned());

    assertThat(result.violation()).startsWith("P1").contains("read as a hole");
  }

  /**
   * A hole the log's prefix trim forgot (found 2026-12-07, fixed 2026-12-08): a writer dies after
   * its stream copy arrived and before its log copy did; a reader of the global log fills the empty
   * log slot with a hole and returns it; the trim, once nothing works on the address, trims that
   * hole away; a reader of the stream then decides the dangling copy, finds every other copy held
   * or trimmed, and commits it: the address read as a hole is later read as data. The log's hole
   * was the only thing that stopped the dangling copy. Not enough to fix it, both tried in this
   * model: each log replica turning the empty slots it trims past into holes of its own (a hole at
   * the log's last replica while its head holds the entry, read, then that replica removed), and a
   * reader filling a stream's empty slot with a hole once the log is trimmed past its token (the
   * log's copy held the entry, so another stream's copy of it commits later). What it needs is
   * {@code LogTrim.DECIDES_AND_KEEPS_HOLES} (the trim passes an address only once the log decided
   * it, and the replicas keep the holes it passes; then that reader's hole is safe too), which the
   * configurations of {@link ModelConfigs#regular()} explore with every rule set, and which the
   * product's trim now follows ({@code LogPrefixTrim}; on a real node: {@code
   * LogTrimKeepsHolesTest}). This counterexample stays, to show what each half of it is for.
   */
  @Test
  void theLogPrefixTrimForgetsAHoleThatGuardedADeadWritersCopy() {
    ModelConfig config = ModelConfigs.emptiedChain().withLogTrim(ModelConfig.LogTrim.FORGETS_HOLES);
    Explorer.Result result = run(config, RuleSet.PARALLEL.fixed());

    assertThat(result.violation()).startsWith("P2");
    assertThat(result.trace()).anyMatch(e -> e.contains("W0 dies"));
    assertThat(result.trace()).anyMatch(e -> e.contains("the log's prefix trim trims log@n0"));
    assertClientsSeeIt(config, RuleSet.PARALLEL.fixed());
  }

  /** Issue 31 as proposed loses a decision after a single removal (the race of fix A). */
  @Test
  void theParallelRuleAsProposedLosesADecisionAfterOneRemoval() {
    Explorer.Result result = run(ModelConfigs.twoNodes(), RuleSet.PARALLEL);

    assertThat(result.violation()).startsWith("P1");
    assertClientsSeeIt(ModelConfigs.twoNodes(), RuleSet.PARALLEL);
  }

  /** Fix B alone does not save the parallel rule: fix A is needed. */
  @Test
  void theParallelRuleNeedsFixA() {
    Explorer.Result result = run(ModelConfigs.twoNodes(), RuleSet.PARALLEL.withUncommittedAbort());

    assertThat(result.violation()).startsWith("P1");
    assertClientsSeeIt(ModelConfigs.twoNodes(), RuleSet.PARALLEL.withUncommittedAbort());
  }

  /**
   * Fix A alone does not save the parallel rule, even within R - 1 failures: with copies written in
   * any order, an abort's committed hole on a middle replica of the deciding chain is read, and two
   * removals leave the head, still holding the entry, to decide it.
   */
  @Test
  void theParallelRuleNeedsFixB() {
    Explorer.Result result = run(ModelConfigs.replicationThree(), RuleSet.PARALLEL.replanned());

    assertThat(result.violation()).startsWith("P1").contains("read as a hole");
  }

  private static void assertExercised(ModelConfig config, Explorer.Result result) {
    Explorer.Coverage coverage = result.coverage();
    assertThat(coverage.acknowledged()).as("some write was acknowledged").isTrue();
    assertThat(coverage.readData()).as("some read returned data").isTrue();
    assertThat(coverage.readHole()).as("some read returned a hole").isTrue();
    assertThat(coverage.removed()).as("a node was removed").isEqualTo(config.maxRemovals() > 0);
    assertThat(coverage.trimmed())
        .as("a slot was trimmed")
        .isEqualTo(config.trimStream() > 0 || config.logTrims());
    assertThat(coverage.reached(Decisions.REPLACE) && coverage.reached(Decisions.COMMIT_HOLE))
        .as("an abort replaced copies and committed its hole")
        .isTrue();
    if (config.trimStream() > 0) {
      assertThat(coverage.reached(Decisions.FROM_COPIES))
          .as("a decision met a trimmed decider")
          .isTrue();
    }
    if (config.logTrim() == ModelConfig.LogTrim.DECIDES_AND_KEEPS_HOLES) {
      assertThat(coverage.reached(Readers.FILL_OVER_TRIMMED_LOG))
          .as("a reader filled a stream's slot whose log copies were all trimmed")
          .isTrue();
    }
  }

  /**
   * Asserts that a client sees {@code rules} break in {@code config}: checking only what clients
   * saw (not the replicas' slots), the explorer still finds a violation.
   */
  private static void assertClientsSeeIt(ModelConfig config, RuleSet rules) {
    Explorer.Result seen = run(config, rules, true);
    assertThat(seen.violation()).as("a violation a client sees").isNotNull();
  }

  private static Explorer.Result run(ModelConfig config, RuleSet rules) {
    return run(config, rules, false);
  }

  private static Explorer.Result run(ModelConfig config, RuleSet rules, boolean observedOnly) {
    Explorer.Result result = Explorer.explore(config, rules, LIMIT, observedOnly);
    System.out.printf(
        "model %-40s %-12s %,11d states %,12d transitions %,7d ms  %s%n",
        config.name(),
        rules + (observedOnly ? " (clients)" : ""),
        result.states(),
        result.transitions(),
        result.millis(),
        result.violation() == null ? "no violation" : "VIOLATION " + result.violation());
    if (result.violation() != null) {
      System.out.println("  " + config.describe());
      List<String> trace = result.trace();
      trace.forEach(System.out::println);
    }
    return result;
  }
}
