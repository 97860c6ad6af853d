package io.vcorfu.server.cli;

import java.io.IOException;
import java.nio.file.Path;
import org.jline.reader.Candidate;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code vcorfu shell} at a terminal: a prompt, line editing, a history of at most {@value
 * #HISTORY_LINES} lines kept in {@code ~/.vcorfu_history}, and Tab completion of command and option
 * names ({@link ShellCompletion}). Ctrl-C stops the running command (the shell goes on) or clears
 * the line being typed; Ctrl-D on an empty line, {@code exit} or {@code quit} leave. Keeps nothing
 * of its own beyond the run.
 */
final class ShellTerminal {
  /** The most lines the history keeps, in memory and in its file. */
  static final int HISTORY_LINES = 1000;

  private ShellTerminal() {}

  /** Reads and runs lines from the terminal until the person leaves. */
  static void run(ShellCommand.Lines lines, CommandSpec tree, String prompt) throws IOException {
    ShellCompletion completion = new ShellCompletion(tree);
    try (Terminal terminal = TerminalBuilder.builder().system(true).build()) {
      LineReader reader =
          LineReaderBuilder.builder()
              .terminal(terminal)
              .appName("vcorfu")
              .completer(
                  (r, line, candidates) -> {
                    String partial = line.word().substring(0, line.wordCursor());
                    for (String c :
                        completion.candidates(line.words().subList(0, line.wordIndex()), partial)) {
                      candidates.add(new Candidate(c));
                    }
                  })
              .variable(
                  LineReader.HISTORY_FILE,
                  Path.of(System.getProperty("user.home"), ".vcorfu_history"))
              .variable(LineReader.HISTORY_SIZE, HISTORY_LINES)
              .variable(LineReader.HISTORY_FILE_SIZE, HISTORY_LINES)
              .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
              .option(LineReader.Option.HISTORY_IGNORE_SPACE, true)
              .build();
      Thread runner = Thread.currentThread();
      terminal.handle(Terminal.Signal.INT, signal -> runner.interrupt());
      terminal
          .writer()
          .println(
              "vcorfu shell: vcorfu commands without `vcorfu` (help lists them; exit or Ctrl-D"
                  + " leaves)");
      terminal.flush();
      while (true) {
        String line;
        try {
          line = reader.readLine(prompt);
        } catch (UserInterruptException clearLine) {
          continue;
        } catch (EndOfFileException end) {
          break;
        }
        if (lines.run(line).leave()) {
          break;
        }
      }
      reader.getHistory().save();
    }
  }
}
