package io.vcorfu.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Endpoint lists as users write them on the command line. */
class EndpointTest {

  @Test
  void aListKeepsItsOrderIgnoresSpacesAndNamesEachEndpointOnce() {
    assertThat(Endpoint.parseList("a:1, b:2 ,a:1,c:3"))
        .containsExactly(new Endpoint("a", 1), new Endpoint("b", 2), new Endpoint("c", 3));
    assertThat(Endpoint.parseList("127.0.0.1:9000"))
        .containsExactly(Endpoint.parse("127.0.0.1:9000"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "a:1,,b:2 | endpoint 2 of 'a:1,,b:2' is empty",
        "a:1, | endpoint 2 of 'a:1,' is empty",
        ",a:1 | endpoint 1 of ',a:1' is empty",
        "a:1,b | endpoint 2 of 'a:1,b': endpoint must be host:port, got 'b'",
        "a:1,b:x | endpoint 2 of 'a:1,b:x': endpoint port is not a number in 'b:x'",
        "a:99999 | endpoint 1 of 'a:99999': endpoint port out of range: 99999",
      })
  void aMalformedListSaysWhichEndpointIsWrong(String list, String message) {
    assertThatThrownBy(() -> Endpoint.parseList(list))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void anEmptyListIsRefused() {
    assertThatThrownBy(() -> Endpoint.parseList(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no endpoint given");
  }
}
