package io.vcorfu.protocol;

/** A malformed or meaningless request. */
public final class BadRequestException extends VCorfuException {
  public BadRequestException(String message) {
    super(message);
  }

  public BadRequestException(String message, Throwable cause) {
    super(message, cause);
  }
}
