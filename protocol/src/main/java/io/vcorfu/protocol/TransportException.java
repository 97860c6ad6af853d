package io.vcorfu.protocol;

/** The endpoint could not be reached or the connection dropped before the response. */
public final class TransportException extends VCorfuException {
  private final boolean neverSent;

  public TransportException(String message) {
    this(message, null, false);
  }

  public TransportException(String message, Throwable cause) {
    this(message, cause, false);
  }

  private TransportException(String message, Throwable cause, boolean neverSent) {
    super(message, cause);
    this.neverSent = neverSent;
  }

  /**
   * A failure before the request left this client (no connection to the endpoint could be made, or
   * the network to it is cut): the server has not seen the request, so sending it again cannot
   * apply it twice.
   */
  public static TransportException neverSent(String message, Throwable cause) {
    return new TransportException(message, cause, true);
  }

  /**
   * True when the request certainly never reached the server (see {@link #neverSent}); false when
   * it may have: a connection that dropped, or a failure that does not say.
   */
  public boolean wasNeverSent() {
    return neverSent;
  }
}
