package io.vcorfu.protocol;

/** The request went to a server that does not host the role it needs. */
public final class NotServingException extends VCorfuException {
  private final String role;

  public String role() {
    return role;
  }

  public NotServingException(String role) {
    super("this server does not host the " + role + " role in the current layout");
    this.role = role;
  }

  /**
   * The server hosts no role for now, for {@code reason} (a person's sentence: a cluster node that
   * has no layout yet, is sealed ahead of its layout, or whose layout lease ran out).
   */
  public NotServingException(String role, String reason) {
    super(reason);
    this.role = role;
  }

  /**
   * The same refusal told in {@code message}, caused by {@code cause} (for a client that retried
   * and reports the refusal it gave up on).
   */
  public NotServingException(String role, String message, Throwable cause) {
    super(message, cause);
    this.role = role;
  }
}
