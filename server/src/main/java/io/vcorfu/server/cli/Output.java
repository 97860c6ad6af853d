package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import picocli.CommandLine.Option;

/**
 * {@code --output text|json} and how values are printed: as text, one entry per line always (a
 * value's newlines, tabs, backslashes, other control characters and bytes that are not UTF-8 are
 * escaped, {@code \n}, {@code \t}, {@code \\}, {@code \xNN}); as JSON, one object per line, a value
 * under {@code "value"} when it is UTF-8 text, else under {@code "valueBase64"}.
 */
final class Output {
  /**
   * The JSON mapper of {@code --output json}, made on first use: making one takes a one-shot
   * command tens of milliseconds, which text output does not need.
   */
  static ObjectMapper mapper() {
    return Mapper.INSTANCE;
  }

  private static final class Mapper {
    static final ObjectMapper INSTANCE = new ObjectMapper();
  }

  @Option(
      names = "--output",
      defaultValue = "text",
      paramLabel = "FORMAT",
      description =
          "text (one entry per line, values escaped) or json (one object per line)"
              + " (default ${DEFAULT-VALUE}).")
  OutputFormat format = OutputFormat.text;

  boolean json() {
    return format == OutputFormat.json;
  }

  /** {@code bytes} as one line of text: UTF-8 with control characters escaped, else bytes. */
  static String escape(byte[] bytes) {
    String text = utf8(bytes);
    StringBuilder b = new StringBuilder(bytes.length + 8);
    if (text == null) {
      for (byte x : bytes) {
        int c = x & 0xff;
        if (c == '\\') {
          b.append("\\\\");
        } else if (c >= 0x20 && c < 0x7f) {
          b.append((char) c);
        } else {
          b.append(String.format("\\x%02x", c));
        }
      }
      return b.toString();
    }
    text.codePoints()
        .forEach(
            c -> {
              switch (c) {
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                  if (c < 0x20 || c == 0x7f) {
                    b.append(String.format("\\x%02x", c));
                  } else {
                    b.appendCodePoint(c);
                  }
                }
              }
            });
    return b.toString();
  }

  /** Puts {@code bytes} into {@code node}: {@code "value"} when UTF-8, else base64. */
  static void putValue(ObjectNode node, byte[] bytes) {
    String text = utf8(bytes);
    if (text != null) {
      node.put("value", text);
    } else {
      node.put("valueBase64", Base64.getEncoder().encodeToString(bytes));
    }
  }

  /** {@code bytes} decoded as UTF-8, or null when they are not valid UTF-8. */
  static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** One JSON object as a line (Jackson writes a node's {@code toString} as compact JSON). */
  static String line(ObjectNode node) {
    return node.toString();
  }
}
