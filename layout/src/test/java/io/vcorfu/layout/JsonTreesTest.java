package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The streaming reader builds the tree {@code ObjectMapper.readTree} builds, for layouts and for
 * every kind of value, and refuses what it refuses.
 */
class JsonTreesTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  static List<String> documents() {
    String layout = Layout.fromJson(LayoutJsonTest.EXAMPLE).toJson();
    return List.of(
        layout,
        "{}",
        "[]",
        "{\"a\": [1, -2, 2147483648, -9223372036854775809, 1.5, -0.0, 1e300, true, false, null]}",
        "{\"a\": 1, \"a\": \"two\"}",
        "{\"s\": \"\\u00e9\\n\\\"q\\\"\", \"o\": {\"p\": [[], {}, [{\"x\": 1}]]}}",
        "  42  ",
        "\"text\"",
        "{\"a\": 1} trailing");
  }

  @ParameterizedTest
  @MethodSource("documents")
  void readsTheTreeObjectMapperReads(String json) throws Exception {
    assertThat(JsonTrees.read(json)).isEqualTo(MAPPER.readTree(json));
  }

  @ParameterizedTest
  @ValueSource(strings = {"{", "{\"a\" 1}", "[1,]", "{\"a\": tru}", "}"})
  void refusesWhatIsNotJson(String json) {
    assertThatThrownBy(() -> JsonTrees.read(json)).isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> MAPPER.readTree(json)).isInstanceOf(JsonProcessingException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   "})
  void anEmptyDocumentIsNoTree(String json) throws Exception {
    assertThat(JsonTrees.read(json)).isNull();
  }

  @ParameterizedTest
  @ValueSource(ints = {65, 10_000})
  void refusesNestingDeeperThanSixtyFourLevels(int depth) {
    String json = "[".repeat(depth) + "]".repeat(depth);
    assertThatThrownBy(() -> JsonTrees.read(json))
        .isInstanceOf(JsonProcessingException.class)
        .hasMessageContaining("nested deeper");
  }
}
