package io.vcorfu.protocol;

/** The server sealed its epoch during reconfiguration. */
public final class SealedException extends VCorfuException {
  private final long sealedEpoch;

  public long sealedEpoch() {
    return sealedEpoch;
  }
  public SealedException(long sealedEpoch) {
    super("epoch " + sealedEpoch + " is sealed; a new layout is being installed");
    this.sealedEpoch = sealedEpoch;
  }
}
