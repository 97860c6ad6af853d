package io.vcorfu.protocol;

/** The endpoint could not be reached or the connection dropped before the response. */
public final class TransportException extends VCorfuException {
  private final boolean neverSent;
  private final boolean refused;

  public TransportException(String message) {
    this(message, null, false, false);
  }

  public TransportException(String message, Throwable cause) {
    this(message, cause, false, false);
  }

  private TransportException(String message, Throwable cause, boolean neverSent, boolean refused) {
    super(message, cause);
    this.neverSent = neverSent;
    this.refused = refused;
  }

  /**
   * A failure before the request left this client (no connection to the endpoint could be made, or
   * the network to it is cut): the server has not seen the request, so sending it again cannot
   * apply it twice.
   */
  public static TransportException neverSent(String message, Throwable cause) {
    return new TransportException(message, cause, true, false);
  }

  /**
   * The endpoint's host answered that nothing listens on the port (a TCP reset to the connection
   * attempt): no process serves there now. Unlike silence, which a paused or cut-off process also
   * shows, this is evidence that the process is gone. Never sent, too.
   */
  public static TransportException refused(String message, Throwable cause) {
    return new TransportException(message, cause, true, true);
  }

  /**
   * True when the request certainly never reached the server (see {@link #neverSent}); false when
   * it may have: a connection that dropped, or a failure that does not say.
   */
  public boolean wasNeverSent() {
    return neverSent;
  }

  /**
   * True when the connection attempt was refused: nothing listened there (see {@link #refused}).
   */
  public boolean wasRefused() {
    return refused;
  }
}
