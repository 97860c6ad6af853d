package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Arbitrary text (the input bytes as UTF-8) as a layout document: {@link Layout#fromJson} answers a
 * valid layout, which its own JSON parses back to, or throws {@link LayoutException}; nothing else.
 *
 * <p>Corpus: {@code LayoutJsonFuzzTestInputs/anyTextIsALayoutOrLayoutException}.
 */
class LayoutJsonFuzzTest {

  @FuzzTest(maxDuration = "10m")
  void anyTextIsALayoutOrLayoutException(byte[] input) {
    String json = new String(input, StandardCharsets.UTF_8);
    Layout layout;
    try {
      layout = Layout.fromJson(json);
    } catch (LayoutException refused) {
      return;
    }
    assertThat(Layout.fromJson(layout.toJson())).isEqualTo(layout);
  }
}
