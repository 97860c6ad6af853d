package io.vcorfu.protocol;

import java.util.HexFormat;

/**
 * The remote-view host does not have the version of an object class a call named (by the digest of
 * its class bundle) and asks for the bundle: the client sends the call again carrying it. Nothing
 * of the call was done. A client answers it at most once per call; it reaches a caller only when
 * the client has no bundle to send (the class has no code source it can read).
 */
public final class ClassesNeededException extends VCorfuException {
  private final String type;
  private final byte[] digest;

  /**
   * @param type the object class's name
   * @param digest the digest of the bundle the call named
   */
  public ClassesNeededException(String type, byte[] digest) {
    super(
        "the node does not have class "
            + type
            + " (bundle "
            + shortHex(digest)
            + ") loaded and asks for its classes; a client sends them again with the call");
    this.type = type;
    this.digest = digest.clone();
  }

  /** The first 12 hex digits of {@code digest}: enough to tell bundles apart in a message. */
  public static String shortHex(byte[] digest) {
    String hex = HexFormat.of().formatHex(digest);
    return hex.length() > 12 ? hex.substring(0, 12) : hex;
  }

  public String type() {
    return type;
  }

  public byte[] digest() {
    return digest.clone();
  }
}
