package io.vcorfu.server.cli;

import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.proto.PingResponse;
import java.util.Locale;

/**
 * The line {@code vcorfu ping} prints for one node, as text or as one JSON object, built the same
 * way whether the ping ran through a client ({@link PingCommand}) or on a bare socket ({@link
 * QuickPing}). The JSON is written here rather than through a JSON library: loading one costs a
 * one-shot call tens of milliseconds, and the object has five flat fields.
 */
final class PingLine {
  private PingLine() {}

  /** The line of a node that answered {@code p} after {@code millis}. */
  static String answered(Endpoint node, PingResponse p, double millis, boolean json) {
    if (!json) {
      return p.getServing()
          ? node + " serving epoch " + p.getEpoch() + String.format(" (%.2f ms)", millis)
          : node + " not serving: " + p.getNotServingReason();
    }
    StringBuilder b = new StringBuilder(128);
    b.append("{\"endpoint\":");
    quote(b, node.toString());
    b.append(",\"state\":").append(p.getServing() ? "\"serving\"" : "\"not serving\"");
    b.append(",\"epoch\":").append(p.getEpoch());
    b.append(",\"millis\":").append(Math.round(millis * 100) / 100.0);
    if (!p.getCluster().isEmpty()) {
      b.append(",\"cluster\":");
      quote(b, p.getCluster());
    }
    if (!p.getServing()) {
      b.append(",\"reason\":");
      quote(b, p.getNotServingReason());
    }
    return b.append('}').toString();
  }

  /** The line of a node that did not answer, {@code why}. */
  static String unreachable(Endpoint node, String why, boolean json) {
    if (!json) {
      return node + " unreachable: " + why;
    }
    StringBuilder b = new StringBuilder(128);
    b.append("{\"endpoint\":");
    quote(b, node.toString());
    b.append(",\"state\":\"unreachable\",\"reason\":");
    quote(b, why);
    return b.append('}').toString();
  }

  /**
   * Appends {@code s} as a JSON string: quote and backslash escaped, control characters as {@code
   * \b \t \n \f \r} or {@code \}{@code u00XX}, everything else as it is (UTF-8 on output).
   */
  static void quote(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\b' -> b.append("\\b");
        case '\t' -> b.append("\\t");
        case '\n' -> b.append("\\n");
        case '\f' -> b.append("\\f");
        case '\r' -> b.append("\\r");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
