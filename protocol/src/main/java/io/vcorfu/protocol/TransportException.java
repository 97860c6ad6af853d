package io.vcorfu.protocol;

/** The endpoint could not be reached or the connection dropped before the response. */
public final class TransportException extends VCorfuException {
  public TransportException(String message) {
    super(message);
  }

  public TransportException(String message, Throwable cause) {
    super(message, cause);
  }
}
