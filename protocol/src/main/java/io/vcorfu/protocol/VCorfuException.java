package io.vcorfu.protocol;

/**
 * Base of every typed vcorfu error. Each subclass corresponds to one {@code ErrorMsg} case on the
 * wire ({@link Errors} maps both ways) and carries what a caller needs to recover.
 */
public class VCorfuException extends RuntimeException {
  public VCorfuException(String message) {
    super(message);
  }

  public VCorfuException(String message, Throwable cause) {
    super(message, cause);
  }
}
