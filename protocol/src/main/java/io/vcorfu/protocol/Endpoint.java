package io.vcorfu.protocol;

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

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
