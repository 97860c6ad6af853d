package io.vcorfu.server;

import java.nio.file.Path;
import java.util.OptionalLong;

/** Another node holds the data directory a node was asked to start on; the node did not start. */
public final class DataDirectoryInUseException extends RuntimeException {
  private final Path directory;
  private final OptionalLong holderPid;

  public DataDirectoryInUseException(Path directory, OptionalLong holderPid) {
    super(
        "data directory "
            + directory
            + " is in use by another vcorfu node"
            + (holderPid.isPresent() ? " (process " + holderPid.getAsLong() + ")" : "")
            + "; stop that node or give this one another --data-dir");
    this.directory = directory;
    this.holderPid = holderPid;
  }

  public Path directory() {
    return directory;
  }

  /** The process holding the directory, when it could be read from the lock file. */
  public OptionalLong holderPid() {
    return holderPid;
  }
}
