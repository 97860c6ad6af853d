package io.vcorfu.server.cli;

import io.vcorfu.protocol.VCorfuException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code vcorfu} command. */
@Command(
    name = "vcorfu",
    mixinStandardHelpOptions = true,
    description = "vcorfu: a strongly consistent object store on a materialized shared log.",
    subcommands = {
      ServerCommand.class,
      LogCommands.class,
      MapCommands.class,
      ClusterCommands.class,
      ZooKeeperCommand.class
    })
public final class VcorfuCli {
  private VcorfuCli() {}

  public static void main(String[] args) {
    System.exit(newCommandLine().execute(args));
  }

  /** The {@code vcorfu} command line, ready to execute. */
  public static CommandLine newCommandLine() {
    return commandLine(new VcorfuCli());
  }

  /**
   * A command line whose failures print one clear line ({@code vcorfu: <message>}, see {@link
   * #describe}) and exit 1, instead of a stack trace. Shared by the {@code bench} tool.
   */
  public static CommandLine commandLine(Object command) {
    CommandLine cl = new CommandLine(command);
    cl.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          line.getErr().println("vcorfu: " + describe(e));
          return 1;
        });
    return cl;
  }

  /**
   * What went wrong, for a person: the messages of {@code error} and of every cause under it, outer
   * first, joined by ": " (so a wrapper's context is followed by the root cause's reason, such as
   * the file and offset of a corrupt segment). Wrappers that add no words of their own, and
   * messages already said, are left out; a typed error ({@link VCorfuException}, or an
   * IllegalArgumentException for bad input) ends the chain, its message being complete. A class
   * name appears only for an error that carries no message at all.
   */
  public static String describe(Throwable error) {
    StringBuilder out = new StringBuilder();
    java.util.Set<Throwable> seen =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      String m = ownMessage(t, out);
      if (m == null || out.indexOf(m) >= 0) {
        continue;
      }
      if (out.length() > 0) {
        out.append(": ");
      }
      out.append(m);
      if (t instanceof VCorfuException || t instanceof IllegalArgumentException) {
        break; // a typed error's message is whole; what it wraps is detail for the log
      }
    }
    if (out.length() == 0) {
      Throwable root = error;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      return "unexpected "
          + root.getClass().getSimpleName()
          + " (no details; the server log may say more)";
    }
    return out.toString();
  }

  /** {@code t}'s own words, or null when it only wraps its cause or says nothing. */
  private static String ownMessage(Throwable t, CharSequence saidSoFar) {
    if (t instanceof FileSystemException f && f.getReason() == null) {
      String what =
          t instanceof NoSuchFileException
              ? "no such file"
              : t instanceof AccessDeniedException
                  ? "permission denied"
                  : t instanceof FileAlreadyExistsException
                      ? "file already exists"
                      : t instanceof NotDirectoryException
                          ? "not a directory"
                          : t instanceof DirectoryNotEmptyException ? "directory not empty" : null;
      if (what != null) {
        String file = f.getFile();
        return file == null || saidSoFar.toString().contains(file) ? what : what + ": " + file;
      }
    }
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return null;
    }
    Throwable cause = t.getCause();
    if (cause != null && m.equals(cause.toString())) {
      return null; // a wrapper such as CompletionException(cause) adds nothing
    }
    return m;
  }
}
