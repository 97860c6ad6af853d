package io.vcorfu.client.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The configurations the model test explores. The regular ones run in the normal suite (about 1.2
 * million states in all under the parallel rule, a few seconds); {@code -Dvcorfu.model.large=true}
 * adds larger ones (R = 3, two streams with two removals, two readers at once, a message per copy:
 * about 20 million states more, a minute or two). Chains rotate over the nodes as {@code
 * LayoutChanges.initial} lays them out, so every node heads one chain.
 */
final class ModelConfigs {
  private ModelConfigs() {}

  private static final int[][] NO_STREAMS = {};

  /** 2 nodes, R = 2: log [n0 n1], s1 [n1 n0]; 1 removal. */
  static ModelConfig twoNodes() {
    return config("2 nodes R=2, 1 removal", 2, chain(0, 1), streams(chain(1, 0)), 1, 1, 2, 1, 0, 0);
  }

  /** 2 nodes, R = 1: log [n0], s1 [n1]; removing n1 empties the deciding chain. */
  static ModelConfig emptiedChain() {
    return config("2 nodes R=1, 1 removal", 2, chain(0), streams(chain(1)), 1, 1, 2, 1, 0, 0);
  }

  /** 3 nodes, R = 1, an entry of two streams: log [n0], s1 [n1], s2 [n2]; 1 removal. */
  static ModelConfig twoStreams() {
    return config(
        "3 nodes R=1, 2 streams, 1 removal",
        3,
        chain(0),
        streams(chain(1), chain(2)),
        1,
        1,
        2,
        1,
        0,
        0);
  }

  /** 3 nodes, R = 2: log [n0 n1], s1 [n1 n2]; 2 removals (the second may empty s1). */
  static ModelConfig twoRemovals() {
    return config(
        "3 nodes R=2, 2 removals", 3, chain(0, 1), streams(chain(1, 2)), 1, 1, 2, 2, 0, 0);
  }

  /** 3 nodes, R = 3: log [n0 n1 n2], s1 [n1 n2 n0]; 2 removals (within R - 1 failures). */
  static ModelConfig replicationThree() {
    return config(
        "3 nodes R=3, 2 removals", 3, chain(0, 1, 2), streams(chain(1, 2, 0)), 1, 1, 2, 2, 0, 0);
  }

  static List<ModelConfig> regular() {
    return List.of(
        twoNodes(),
        twoNodes().withMessagePerCopy(),
        emptiedChain(),
        twoStreams(),
        twoRemovals(),
        config(
            "2 nodes R=1, trim of s1, 1 removal", 2, chain(0), streams(chain(1)), 1, 1, 1, 1, 0, 1),
        trimmedTwoNodes(),
        config(
            "2 nodes R=1, 2 addresses, 1 removal",
            2,
            chain(0),
            streams(chain(1)),
            2,
            1,
            2,
            1,
            0,
            0),
        crashTwoNodes(),
        twoNodes().withLogTrim(ModelConfig.LogTrim.DECIDES_AND_KEEPS_HOLES),
        emptiedChain().withLogTrim(ModelConfig.LogTrim.DECIDES_AND_KEEPS_HOLES),
        twoStreams().withLogTrim(ModelConfig.LogTrim.DECIDES_AND_KEEPS_HOLES),
        config(
                "2 nodes R=1, trim of s1, 1 removal",
                2,
                chain(0),
                streams(chain(1)),
                1,
                1,
                1,
                1,
                0,
                1)
            .withLogTrim(ModelConfig.LogTrim.DECIDES_AND_KEEPS_HOLES));
  }

  /** 2 nodes, R = 2, a trimmer of s1 and one reader; no removal. */
  static ModelConfig trimmedTwoNodes() {
    return config(
        "2 nodes R=2, trim of s1", 2, chain(0, 1), streams(chain(1, 0)), 1, 1, 1, 0, 0, 1);
  }

  /** 2 nodes, R = 2; a crash and a removal. */
  static ModelConfig crashTwoNodes() {
    return config(
        "2 nodes R=2, 1 crash, 1 removal", 2, chain(0, 1), streams(chain(1, 0)), 1, 1, 2, 1, 1, 0);
  }

  static List<ModelConfig> large() {
    List<ModelConfig> out = new ArrayList<>();
    out.add(replicationThree());
    out.add(twoRemovals().withMessagePerCopy());
    out.add(trimmedTwoNodes().withMessagePerCopy());
    out.add(crashTwoNodes().withMessagePerCopy());
    out.add(
        config(
            "3 nodes R=2, 2 streams, 2 removals",
            3,
            chain(0, 1),
            streams(chain(1, 2), chain(2, 0)),
            1,
            1,
            2,
            2,
            0,
            0));
    out.add(
        config(
            "2 nodes R=2, trim of s1, 1 removal",
            2,
            chain(0, 1),
            streams(chain(1, 0)),
            1,
            1,
            1,
            1,
            0,
            1));
    out.add(
        config(
            "3 nodes R=1, 2 streams, trim of s2, 1 removal",
            3,
            chain(0),
            streams(chain(1), chain(2)),
            1,
            1,
            1,
            1,
            0,
            2));
    out.add(
        config(
            "3 nodes R=2, 1 crash, 1 removal",
            3,
            chain(0, 1),
            streams(chain(1, 2)),
            1,
            1,
            2,
            1,
            1,
            0));
    out.add(
        config(
            "2 nodes R=2, 2 readers, 1 removal",
            2,
            chain(0, 1),
            streams(chain(1, 0)),
            1,
            2,
            1,
            1,
            0,
            0));
    out.add(
        config(
            "3 nodes R=1, 2 streams, 2 readers, 1 removal",
            3,
            chain(0),
            streams(chain(1), chain(2)),
            1,
            2,
            1,
            1,
            0,
            0));
    out.add(
        config(
            "3 nodes R=2, 2 readers, 2 removals",
            3,
            chain(0, 1),
            streams(chain(1, 2)),
            1,
            2,
            1,
            2,
            0,
            0));
    return out;
  }

  /** The regular configurations, and the large ones when {@code vcorfu.model.large} is set. */
  static List<ModelConfig> all() {
    List<ModelConfig> out = new ArrayList<>(regular());
    if (Boolean.getBoolean("vcorfu.model.large")) {
      out.addAll(large());
    }
    return out;
  }

  private static ModelConfig config(
      String name,
      int nodes,
      int[] log,
      int[][] streams,
      int addresses,
      int readers,
      int reads,
      int removals,
      int crashes,
      int trim) {
    return new ModelConfig(
        name,
        nodes,
        log,
        streams,
        addresses,
        readers,
        reads,
        removals,
        crashes,
        trim,
        false,
        ModelConfig.LogTrim.NONE);
  }

  private static int[] chain(int... nodes) {
    return nodes;
  }

  private static int[][] streams(int[]... chains) {
    return chains.length == 0 ? NO_STREAMS : chains;
  }
}
