package io.vcorfu.protocol;

/**
 * The node refused a request because the caller's principal holds no grant of the permission it
 * needs: nothing of the request was done. Not retried: the same principal is refused the same way
 * until an administrator grants it ({@code vcorfu acl grant}).
 */
public final class PermissionDeniedException extends VCorfuException {
  private final String permission;
  private final StreamId stream;
  private final String principal;

  /**
   * @param permission the permission missing (read, write, trim, admin, view, deploy, node)
   * @param stream the stream it is missing on; null when the request is not about one stream
   * @param principal who asked, as the node names it
   */
  public PermissionDeniedException(String permission, StreamId stream, String principal) {
    super(describe(permission, stream, principal));
    this.permission = permission;
    this.stream = stream;
    this.principal = principal;
  }

  private static String describe(String permission, StreamId stream, String principal) {
    String what;
    if (stream == null) {
      what = "";
    } else if (stream.name() == null) {
      what = " on stream " + stream;
    } else {
      int cut = stream.name().indexOf(StreamId.DERIVED);
      what =
          " on stream '"
              + (cut < 0 ? stream.name() : stream.name().substring(0, cut))
              + "'"
              + (cut < 0 ? "" : " (its " + stream.name().substring(cut + 1) + " stream)");
    }
    return "permission denied: "
        + principal
        + " holds no '"
        + permission
        + "' grant"
        + what
        + "; an administrator can give one with vcorfu acl grant";
  }

  public String permission() {
    return permission;
  }

  /** The stream refused, or null when the request is not about one stream. */
  public StreamId stream() {
    return stream;
  }

  public String principal() {
    return principal;
  }
}
