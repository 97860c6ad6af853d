package io.vcorfu.layout;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Reads a JSON document into Jackson's tree model with the streaming parser alone: the same tree
 * {@code ObjectMapper.readTree} builds (integers as the smallest of int, long and big integer,
 * other numbers as doubles, a repeated field's last value kept, anything after the first value
 * ignored), without making an {@code ObjectMapper}, which costs a one-shot command that reads a
 * layout tens of milliseconds. Thread-safe.
 */
final class JsonTrees {
  private static final JsonFactory FACTORY = new JsonFactory();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Deepest nesting read; the layout documents nest four levels. */
  private static final int MAX_DEPTH = 64;

  private JsonTrees() {}

  /**
   * The tree of {@code json}, or null when it holds no value at all.
   *
   * @throws JsonProcessingException when it is not JSON (or nests deeper than 64 levels)
   */
  static JsonNode read(String json) throws JsonProcessingException {
    try (JsonParser p = FACTORY.createParser(json)) {
      return p.nextToken() == null ? null : value(p, 0);
    } catch (JsonProcessingException e) {
      throw e;
    } catch (IOException e) {
      // Reading a String does no I/O.
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode value(JsonParser p, int depth) throws IOException {
    if (depth >= MAX_DEPTH) {
      throw new JsonParseException(p, "nested deeper than " + MAX_DEPTH + " levels");
    }
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT -> {
        ObjectNode o = NODES.objectNode();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          o.set(name, value(p, depth + 1));
        }
        return o;
      }
      case START_ARRAY -> {
        ArrayNode a = NODES.arrayNode();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          a.add(value(p, depth + 1));
        }
        return a;
      }
      case VALUE_STRING -> {
        return NODES.textNode(p.getText());
      }
      case VALUE_NUMBER_INT -> {
        return switch (p.getNumberType()) {
          case INT -> NODES.numberNode(p.getIntValue());
          case LONG -> NODES.numberNode(p.getLongValue());
          default -> NODES.numberNode(p.getBigIntegerValue());
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        return NODES.numberNode(p.getDoubleValue());
      }
      case VALUE_TRUE -> {
        return NODES.booleanNode(true);
      }
      case VALUE_FALSE -> {
        return NODES.booleanNode(false);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> throw new JsonParseException(p, "unexpected " + t);
    }
  }
}
