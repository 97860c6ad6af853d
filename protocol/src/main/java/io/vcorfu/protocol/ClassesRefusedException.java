package io.vcorfu.protocol;

/**
 * The remote-view host will not run the object class a call needs: it does not have that version on
 * its class path, and it does not take classes from clients (it was not started with {@code
 * --accept-remote-classes}) or refused the bundle sent. Nothing was loaded and nothing of the call
 * was done; the message says, in one line, what to change. Not retried: the node answers the same
 * until an operator changes it.
 */
public final class ClassesRefusedException extends VCorfuException {
  private final String type;

  /**
   * @param type the object class's name
   * @param message one line saying why and what to do
   */
  public ClassesRefusedException(String type, String message) {
    super(message);
    this.type = type;
  }

  public String type() {
    return type;
  }
}
