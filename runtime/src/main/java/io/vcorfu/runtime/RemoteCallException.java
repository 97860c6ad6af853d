package io.vcorfu.runtime;

import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.VCorfuException;

/**
 * A method of a remote view threw on the host. Carries the class name and message of the exception
 * the object's code threw there; the object's state is unaffected (the host only runs methods on
 * its copy of the state, or on a private one).
 */
public final class RemoteCallException extends VCorfuException {
  private final String remoteType;
  private final String remoteMessage;
  private final StreamId stream;
  private final String method;

  public RemoteCallException(
      StreamId stream, String method, String remoteType, String remoteMessage) {
    super(
        "method "
            + method
            + " of the remote view of stream "
            + stream
            + " threw "
            + remoteType
            + (remoteMessage.isEmpty() ? "" : ": " + remoteMessage));
    this.stream = stream;
    this.method = method;
    this.remoteType = remoteType;
    this.remoteMessage = remoteMessage;
  }

  /** The class name of the exception the method threw on the host. */
  public String remoteType() {
    return remoteType;
  }

  /** Its message, or the empty string when it had none. */
  public String remoteMessage() {
    return remoteMessage;
  }

  public StreamId stream() {
    return stream;
  }

  /** The stable signature of the method that threw. */
  public String method() {
    return method;
  }
}
