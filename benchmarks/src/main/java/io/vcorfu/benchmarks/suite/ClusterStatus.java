package io.vcorfu.benchmarks.suite;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * What a run reads of one {@code cluster status --output json} sample: whether the cluster is at
 * full strength, which nodes are removed, members or rebuilding, and how far each rebuild got.
 * Pure: a missing field reads as empty.
 */
record ClusterStatus(JsonNode json) {
  /** One node's rebuild: entries and bytes copied so far, and whether the copy is done. */
  record Progress(long copied, long bytes, boolean done) {}

  /** One node's rebuild, under way or just done. */
  record Rebuild(String node, long copied, long bytes) {}

  private JsonNode layout() {
    return json.path("layout");
  }

  /** No node rebuilds, none is removed and no chain is short of R. */
  boolean healthy() {
    return !layout().isMissingNode()
        && truthy(layout())
        && !truthy(layout().path("rebuilding"))
        && !truthy(layout().path("removed"))
        && !truthy(json.path("underReplicated"));
  }

  /**
   * The nodes of the first stream chain of the newest segment ({@code
   * layout.segments[-1].stream[0]}), or empty when the layout has no such chain.
   */
  Optional<List<String>> firstStreamChain() {
    JsonNode segments = layout().path("segments");
    if (!segments.isArray() || segments.isEmpty()) {
      return Optional.empty();
    }
    JsonNode chain = segments.get(segments.size() - 1).path("stream").path(0);
    if (!chain.isArray()) {
      return Optional.empty();
    }
    List<String> nodes = new ArrayList<>();
    chain.forEach(n -> nodes.add(n.asText()));
    return Optional.of(nodes);
  }

  /** NODE is listed as removed. */
  boolean removed(String node) {
    return contains(layout().path("removed"), node);
  }

  /** NODE is removed, nothing rebuilds and no chain is short of R. */
  boolean strong(String node) {
    return truthy(layout())
        && removed(node)
        && !truthy(layout().path("rebuilding"))
        && !truthy(json.path("underReplicated"));
  }

  /** NODE is in a log or stream chain of the layout and is not rebuilding. */
  boolean member(String node) {
    boolean inChain = false;
    for (JsonNode segment : layout().path("segments")) {
      for (String kind : List.of("log", "stream")) {
        for (JsonNode chain : segment.path(kind)) {
          inChain |= contains(chain, node);
        }
      }
    }
    return inChain && !contains(layout().path("rebuilding"), node);
  }

  /** NODE's rebuild, if it reports one. */
  Optional<Progress> progress(String node) {
    for (JsonNode n : json.path("nodes")) {
      if (n.path("endpoint").asText().equals(node) && n.has("rebuild")) {
        JsonNode r = n.path("rebuild");
        return Optional.of(
            new Progress(
                r.path("entriesCopied").asLong(),
                r.path("bytesCopied").asLong(),
                r.path("done").asBoolean()));
      }
    }
    return Optional.empty();
  }

  /** Every node's rebuild, under way or just done. */
  List<Rebuild> rebuilds() {
    List<Rebuild> all = new ArrayList<>();
    for (JsonNode n : json.path("nodes")) {
      if (n.has("rebuild")) {
        JsonNode r = n.path("rebuild");
        all.add(
            new Rebuild(
                n.path("endpoint").asText(),
                r.path("entriesCopied").asLong(),
                r.path("bytesCopied").asLong()));
      }
    }
    return all;
  }

  /** As Python reads a value in a condition: missing, null, false, 0, "" and empty are false. */
  static boolean truthy(JsonNode v) {
    if (v == null || v.isMissingNode() || v.isNull()) {
      return false;
    }
    if (v.isContainerNode()) {
      return v.size() > 0;
    }
    if (v.isBoolean()) {
      return v.asBoolean();
    }
    if (v.isNumber()) {
      return v.asDouble() != 0;
    }
    return !v.asText().isEmpty();
  }

  /** A list holding NODE, or an object with a field NODE. */
  private static boolean contains(JsonNode v, String node) {
    if (v.isObject()) {
      return v.has(node);
    }
    for (Iterator<JsonNode> it = v.elements(); it.hasNext(); ) {
      if (it.next().asText().equals(node)) {
        return true;
      }
    }
    return false;
  }
}
