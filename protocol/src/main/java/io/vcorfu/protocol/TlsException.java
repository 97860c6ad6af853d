package io.vcorfu.protocol;

/**
 * A TLS connection could not be set up: the peer's certificate is not trusted, it refused ours
 * (none given, signed by another authority, expired), or one side does not speak TLS. Not retried:
 * the same certificates fail the same way until someone changes them. Nothing was served on the
 * connection, so no request sent on it took effect.
 */
public final class TlsException extends VCorfuException {
  public TlsException(String message, Throwable cause) {
    super(message, cause);
  }
}
