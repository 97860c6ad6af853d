package io.vcorfu.server.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a line of {@code vcorfu shell} into the arguments of a command, quoted as in a POSIX
 * shell: blanks separate words; {@code 'single quotes'} keep everything as it is; {@code "double
 * quotes"} keep everything but {@code \"} and {@code \\}; outside quotes a backslash keeps the next
 * character as it is; an unquoted {@code #} at the start of a word begins a comment, to the end of
 * the line. Nothing is expanded ({@code $}, {@code *}, {@code ~} are plain characters). Keeps
 * nothing from one line to the next.
 */
final class ShellWords {
  private ShellWords() {}

  /**
   * The words of {@code line} (none for a blank line or a comment).
   *
   * @throws IllegalArgumentException when a quote is not closed
   */
  static List<String> split(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    int i = 0;
    int n = line.length();
    while (i < n) {
      char c = line.charAt(i);
      if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
        i++;
      } else if (c == '#' && !inWord) {
        break;
      } else if (c == '\'') {
        int close = line.indexOf('\'', i + 1);
        if (close < 0) {
          throw new IllegalArgumentException("unclosed ' quote: close it, or write \\' for a '");
        }
        word.append(line, i + 1, close);
        inWord = true;
        i = close + 1;
      } else if (c == '"') {
        i = doubleQuoted(line, i + 1, word);
        inWord = true;
      } else if (c == '\\' && i + 1 < n) {
        word.append(line.charAt(i + 1));
        inWord = true;
        i += 2;
      } else {
        word.append(c);
        inWord = true;
        i++;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }

  /** Appends the double-quoted text from {@code start} to {@code word}; the index after it. */
  private static int doubleQuoted(String line, int start, StringBuilder word) {
    for (int i = start; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '"') {
        return i + 1;
      }
      if (c == '\\' && i + 1 < line.length()) {
        char next = line.charAt(i + 1);
        if (next == '"' || next == '\\') {
          word.append(next);
          i++;
          continue;
        }
      }
      word.append(c);
    }
    throw new IllegalArgumentException("unclosed \" quote: close it, or write \\\" for a \"");
  }
}
