package io.vcorfu.protocol;

/** No response arrived within the request timeout; the request may or may not have been applied. */
public final class RpcTimeoutException extends VCorfuException {
  public RpcTimeoutException(String message) {
    super(message);
  }

  public RpcTimeoutException(String message, Throwable cause) {
    super(message, cause);
  }
}
