package io.vcorfu.protocol;

/** A stream this server holds nothing for, where something was required. */
public final class UnknownStreamException extends VCorfuException {
  private final StreamId stream;

  public StreamId stream() {
    return stream;
  }

  public UnknownStreamException(StreamId stream) {
    super("stream " + stream + " is not known here");
    this.stream = stream;
  }
}
