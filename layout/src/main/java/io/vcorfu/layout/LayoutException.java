package io.vcorfu.layout;

import io.vcorfu.protocol.VCorfuException;

/** A layout document is invalid, or a layout cannot answer a placement question. */
public class LayoutException extends VCorfuException {
  public LayoutException(String message) {
    super(message);
  }

  public LayoutException(String message, Throwable cause) {
    super(message, cause);
  }
}
