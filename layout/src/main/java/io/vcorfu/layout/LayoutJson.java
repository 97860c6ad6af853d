package io.vcorfu.layout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Reads and writes the layout JSON document with Jackson's tree model, naming every bad field. */
final class LayoutJson {
  private static final Set<String> LAYOUT_FIELDS =
      Set.of(
          "clusterId",
          "epoch",
          "sequencer",
          "segments",
          "replication",
          "removed",
          "incarnations",
          "rebuilding",
          "spares",
          "retired",
          "replacing",
          "streamSince",
          "streamSplits",
          "rebuildingChains",
          "draining");
  private static final Set<String> JOINED_FIELDS = Set.of("from", "log", "stream");
  private static final Set<String> SEGMENT_FIELDS = Set.of("start", "end", "log", "stream");

  private LayoutJson() {}

  /** The mapper that writes layout documents, made on first use (reading needs none). */
  static ObjectMapper mapper() {
    return Mapper.INSTANCE;
  }

  private static final class Mapper {
    static final ObjectMapper INSTANCE = new ObjectMapper();
  }

  static String write(Layout layout) {
    try {
      return mapper().writeValueAsString(toTree(layout));
    } catch (JsonProcessingException e) {
      throw new LayoutException("The layout could not be written as JSON: " + e.getMessage(), e);
    }
  }

  static ObjectNode toTree(Layout layout) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("clusterId", layout.clusterId());
    root.put("epoch", layout.epoch());
    root.put("sequencer", layout.sequencer().toString());
    ArrayNode segments = root.putArray("segments");
    for (Segment s : layout.segments()) {
      ObjectNode seg = segments.addObject();
      seg.put("start", s.start());
      seg.put("end", s.end());
      writeChains(seg.putArray("log"), s.log());
      writeChains(seg.putArray("stream"), s.stream());
    }
    if (layout.replication() > 0) {
      root.put("replication", layout.replication());
    }
    if (!layout.removed().isEmpty()) {
      ArrayNode removed = root.putArray("removed");
      layout.removed().forEach(e -> removed.add(e.toString()));
    }
    if (!layout.incarnations().isEmpty()) {
      ObjectNode incarnations = root.putObject("incarnations");
      Map<String, String> sorted = new TreeMap<>();
      layout.incarnations().forEach((node, id) -> sorted.put(node.toString(), id));
      sorted.forEach(incarnations::put);
    }
    if (!layout.rebuilding().isEmpty()) {
      ObjectNode rebuilding = root.putObject("rebuilding");
      Map<String, Long> sorted = new TreeMap<>();
      layout.rebuilding().forEach((node, since) -> sorted.put(node.toString(), since));
      sorted.forEach(rebuilding::put);
    }
    if (!layout.spares().isEmpty()) {
      ArrayNode spares = root.putArray("spares");
      layout.spares().forEach(e -> spares.add(e.toString()));
    }
    if (!layout.retired().isEmpty()) {
      ArrayNode retired = root.putArray("retired");
      layout.retired().forEach(e -> retired.add(e.toString()));
    }
    if (!layout.replacing().isEmpty()) {
      ObjectNode replacing = root.putObject("replacing");
      Map<String, String> sorted = new TreeMap<>();
      layout.replacing().forEach((node, old) -> sorted.put(node.toString(), old.toString()));
      sorted.forEach(replacing::put);
    }
    if (!layout.streamSince().isEmpty()) {
      ObjectNode since = root.putObject("streamSince");
      new TreeMap<>(layout.streamSince()).forEach((c, e) -> since.put(String.valueOf(c), e));
    }
    if (layout.streamSplits() > 0) {
      root.put("streamSplits", layout.streamSplits());
    }
    if (!layout.draining().isEmpty()) {
      ArrayNode draining = root.putArray("draining");
      layout.draining().forEach(e -> draining.add(e.toString()));
    }
    if (!layout.rebuildingChains().isEmpty()) {
      ObjectNode chains = root.putObject("rebuildingChains");
      Map<String, JoinedChains> sorted = new TreeMap<>();
      layout.rebuildingChains().forEach((node, joined) -> sorted.put(node.toString(), joined));
      sorted.forEach(
          (node, joined) -> {
            ObjectNode j = chains.putObject(node);
            j.put("from", joined.from());
            new java.util.TreeSet<>(joined.log()).forEach(j.putArray("log")::add);
            new java.util.TreeSet<>(joined.stream()).forEach(j.putArray("stream")::add);
          });
    }
    return root;
  }

  private static void writeChains(ArrayNode out, List<List<Endpoint>> chains) {
    for (List<Endpoint> chain : chains) {
      ArrayNode c = out.addArray();
      chain.forEach(e -> c.add(e.toString()));
    }
  }

  static Layout parse(String json) {
    JsonNode root;
    try {
      root = JsonTrees.read(json);
    } catch (JsonProcessingException e) {
      throw new LayoutException("The layout is not valid JSON: " + e.getOriginalMessage(), e);
    }
    return fromTree(root);
  }

  static Layout fromTree(JsonNode root) {
    if (root == null || !root.isObject()) {
      throw new LayoutException("The layout must be a JSON object.");
    }
    checkFields(root, LAYOUT_FIELDS, "The layout");
    JsonNode clusterId = required(root, "clusterId", "The layout");
    if (!clusterId.isTextual()) {
      throw new LayoutException("The layout field 'clusterId' must be a string.");
    }
    long epoch = integer(root, "epoch", "The layout");
    Endpoint sequencer =
        endpoint(required(root, "sequencer", "The layout"), "The layout field 'sequencer'");
    JsonNode segs = required(root, "segments", "The layout");
    if (!segs.isArray()) {
      throw new LayoutException("The layout field 'segments' must be an array.");
    }
    List<Segment> segments = new ArrayList<>();
    for (int i = 0; i < segs.size(); i++) {
      JsonNode seg = segs.get(i);
      String where = "Segment " + i;
      if (!seg.isObject()) {
        throw new LayoutException(where + " must be a JSON object.");
      }
      checkFields(seg, SEGMENT_FIELDS, where);
      segments.add(
          new Segment(
              integer(seg, "start", where),
              integer(seg, "end", where),
              chains(required(seg, "log", where), where + " field 'log'"),
              chains(required(seg, "stream", where), where + " field 'stream'")));
    }
    return new Layout(
        clusterId.asText(),
        epoch,
        sequencer,
        segments,
        wholeNumber(root, "replication"),
        endpoints(root, "removed"),
        incarnations(root),
        rebuilding(root),
        endpoints(root, "spares"),
        endpoints(root, "retired"),
        replacing(root),
        streamSince(root),
        wholeNumber(root, "streamSplits"),
        rebuildingChains(root),
        endpoints(root, "draining"));
  }

  private static Map<Endpoint, JoinedChains> rebuildingChains(JsonNode root) {
    JsonNode v = root.get("rebuildingChains");
    if (v == null || v.isNull()) {
      return Map.of();
    }
    if (!v.isObject()) {
      throw new LayoutException(
          "The layout field 'rebuildingChains' must be an object of \"host:port\":"
              + " {\"from\": address, \"log\": [chain, ...], \"stream\": [chain, ...]} pairs.");
    }
    Map<Endpoint, JoinedChains> out = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String where = "The layout field 'rebuildingChains' entry '" + e.getKey() + "'";
      Endpoint node;
      try {
        node = Endpoint.parse(e.getKey());
      } catch (IllegalArgumentException bad) {
        throw new LayoutException(where + " is not a \"host:port\" endpoint.");
      }
      JsonNode j = e.getValue();
      if (!j.isObject()) {
        throw new LayoutException(where + " must be an object with 'from', 'log' and 'stream'.");
      }
      checkFields(j, JOINED_FIELDS, where);
      out.put(
          node,
          new JoinedChains(
              integer(j, "from", where),
              indexes(required(j, "log", where), where + " field 'log'"),
              indexes(required(j, "stream", where), where + " field 'stream'")));
    }
    return out;
  }

  private static Set<Integer> indexes(JsonNode v, String where) {
    if (!v.isArray()) {
      throw new LayoutException(where + " must be an array of chain indexes.");
    }
    Set<Integer> out = new java.util.HashSet<>();
    for (JsonNode i : v) {
      if (!i.isIntegralNumber() || !i.canConvertToInt() || !out.add(i.asInt())) {
        throw new LayoutException(
            where + " must list chain indexes (integers), each once; got " + v + ".");
      }
    }
    return out;
  }

  private static Map<Integer, Long> streamSince(JsonNode root) {
    JsonNode v = root.get("streamSince");
    if (v == null || v.isNull()) {
      return Map.of();
    }
    if (!v.isObject()) {
      throw new LayoutException(
          "The layout field 'streamSince' must be an object of \"chain index\": epoch pairs.");
    }
    Map<Integer, Long> out = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String where = "The layout field 'streamSince' entry '" + e.getKey() + "'";
      int chain;
      try {
        chain = Integer.parseInt(e.getKey());
      } catch (NumberFormatException bad) {
        throw new LayoutException(where + " is not a chain index.");
      }
      if (!e.getValue().isIntegralNumber() || !e.getValue().canConvertToLong()) {
        throw new LayoutException(where + " must be an epoch (an integer).");
      }
      out.put(chain, e.getValue().asLong());
    }
    return out;
  }

  private static Map<Endpoint, Endpoint> replacing(JsonNode root) {
    JsonNode v = root.get("replacing");
    if (v == null || v.isNull()) {
      return Map.of();
    }
    if (!v.isObject()) {
      throw new LayoutException(
          "The layout field 'replacing' must be an object of \"host:port\": \"host:port\" pairs.");
    }
    Map<Endpoint, Endpoint> out = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String where = "The layout field 'replacing' entry '" + e.getKey() + "'";
      Endpoint node;
      try {
        node = Endpoint.parse(e.getKey());
      } catch (IllegalArgumentException bad) {
        throw new LayoutException(where + " is not a \"host:port\" endpoint.");
      }
      out.put(node, endpoint(e.getValue(), where));
    }
    return out;
  }

  private static Map<Endpoint, Long> rebuilding(JsonNode root) {
    JsonNode v = root.get("rebuilding");
    if (v == null || v.isNull()) {
      return Map.of();
    }
    if (!v.isObject()) {
      throw new LayoutException(
          "The layout field 'rebuilding' must be an object of \"host:port\": epoch pairs.");
    }
    Map<Endpoint, Long> out = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String where = "The layout field 'rebuilding' entry '" + e.getKey() + "'";
      Endpoint node;
      try {
        node = Endpoint.parse(e.getKey());
      } catch (IllegalArgumentException bad) {
        throw new LayoutException(where + " is not a \"host:port\" endpoint.");
      }
      if (!e.getValue().isIntegralNumber() || !e.getValue().canConvertToLong()) {
        throw new LayoutException(where + " must be an epoch (an integer).");
      }
      out.put(node, e.getValue().asLong());
    }
    return out;
  }

  private static Map<Endpoint, String> incarnations(JsonNode root) {
    JsonNode v = root.get("incarnations");
    if (v == null || v.isNull()) {
      return Map.of();
    }
    if (!v.isObject()) {
      throw new LayoutException(
          "The layout field 'incarnations' must be an object of \"host:port\": \"id\" pairs.");
    }
    Map<Endpoint, String> out = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String where = "The layout field 'incarnations' entry '" + e.getKey() + "'";
      Endpoint node;
      try {
        node = Endpoint.parse(e.getKey());
      } catch (IllegalArgumentException bad) {
        throw new LayoutException(where + " is not a \"host:port\" endpoint.");
      }
      if (!e.getValue().isTextual()) {
        throw new LayoutException(where + " must be a string.");
      }
      out.put(node, e.getValue().asText());
    }
    return out;
  }

  /** The optional whole-number field {@code name}; 0 when absent. */
  private static int wholeNumber(JsonNode root, String name) {
    JsonNode v = root.get(name);
    if (v == null || v.isNull()) {
      return 0;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt()) {
      throw new LayoutException(
          "The layout field '" + name + "' must be an integer, got " + v + ".");
    }
    return v.asInt();
  }

  private static List<Endpoint> endpoints(JsonNode root, String field) {
    JsonNode v = root.get(field);
    if (v == null || v.isNull()) {
      return List.of();
    }
    if (!v.isArray()) {
      throw new LayoutException(
          "The layout field '" + field + "' must be an array of \"host:port\" strings.");
    }
    List<Endpoint> out = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      out.add(endpoint(v.get(i), "The layout field '" + field + "' entry " + i));
    }
    return out;
  }

  private static void checkFields(JsonNode node, Set<String> known, String where) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!known.contains(name)) {
        throw new LayoutException(
            where + " has an unknown field '" + name + "'; the known fields are " + known + ".");
      }
    }
  }

  private static JsonNode required(JsonNode node, String field, String where) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      throw new LayoutException(where + " is missing the field '" + field + "'.");
    }
    return v;
  }

  private static long integer(JsonNode node, String field, String where) {
    JsonNode v = required(node, field, where);
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw new LayoutException(
          where + " field '" + field + "' must be an integer, got " + v + ".");
    }
    return v.asLong();
  }

  private static List<List<Endpoint>> chains(JsonNode node, String where) {
    if (!node.isArray()) {
      throw new LayoutException(where + " must be an array of chains (arrays of \"host:port\").");
    }
    List<List<Endpoint>> chains = new ArrayList<>();
    for (int c = 0; c < node.size(); c++) {
      JsonNode chain = node.get(c);
      if (!chain.isArray()) {
        throw new LayoutException(
            where + " chain " + c + " must be an array of \"host:port\" strings.");
      }
      List<Endpoint> endpoints = new ArrayList<>();
      for (int e = 0; e < chain.size(); e++) {
        endpoints.add(endpoint(chain.get(e), where + " chain " + c + " entry " + e));
      }
      chains.add(endpoints);
    }
    return chains;
  }

  private static Endpoint endpoint(JsonNode node, String where) {
    if (!node.isTextual()) {
      throw new LayoutException(where + " must be a \"host:port\" string, got " + node + ".");
    }
    try {
      return Endpoint.parse(node.asText());
    } catch (IllegalArgumentException e) {
      throw new LayoutException(where + " is not a valid endpoint: " + e.getMessage() + ".", e);
    }
  }
}
