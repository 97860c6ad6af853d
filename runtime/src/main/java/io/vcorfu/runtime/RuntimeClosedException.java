package io.vcorfu.runtime;

/** The runtime (or an object opened through it) was used after {@link VCorfuRuntime#close()}. */
public final class RuntimeClosedException extends IllegalStateException {
  public RuntimeClosedException(String message) {
    super(message);
  }
}
