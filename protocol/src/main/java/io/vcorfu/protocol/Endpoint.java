package io.vcorfu.protocol;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** A server address, written {@code host:port}. */
public record Endpoint(String host, int port) {

  public Endpoint {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("endpoint host is empty");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("endpoint port out of range: " + port);
    }
  }

  // equals and hashCode are written out: a record's generated ones are bootstrapped through
  // invokedynamic on first use, which costs a one-shot command milliseconds of method-handle
  // spinning for the first endpoint it compares.
  @Override
  public boolean equals(Object o) {
    return o instanceof Endpoint e && port == e.port && host.equals(e.host);
  }

  @Override
  public int hashCode() {
    return 31 * host.hashCode() + port;
  }

  /** Parses {@code host:port}. */
  public static Endpoint parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("endpoint must be host:port, got '" + text + "'");
    }
    try {
      return new Endpoint(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("endpoint port is not a number in '" + text + "'", e);
    }
  }

  /**
   * Parses a comma-separated list of endpoints, {@code host:port,host:port,...}, in order; spaces
   * around each endpoint are ignored and an endpoint named twice is kept once, where it first
   * appears.
   *
   * @throws IllegalArgumentException naming the list and the offending element when the list is
   *     empty, an element is empty (two commas in a row, a leading or trailing comma) or an element
   *     is not {@code host:port}
   */
  public static List<Endpoint> parseList(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("no endpoint given: expected host:port[,host:port...]");
    }
    String[] parts = text.split(",", -1);
    Set<Endpoint> out = new LinkedHashSet<>();
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i].strip();
      if (part.isEmpty()) {
        throw new IllegalArgumentException(
            "endpoint "
                + (i + 1)
                + " of '"
                + text
                + "' is empty: expected host:port[,host:port...]");
      }
      try {
        out.add(parse(part));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "endpoint " + (i + 1) + " of '" + text + "': " + e.getMessage(), e);
      }
    }
    return List.copyOf(out);
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
