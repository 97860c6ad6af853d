package io.vcorfu.protocol;

/** The server failed in a way the request did not cause. */
public final class ServerErrorException extends VCorfuException {
  public ServerErrorException(String message) {
    super(message);
  }

  public ServerErrorException(String message, Throwable cause) {
    super(message, cause);
  }
}
