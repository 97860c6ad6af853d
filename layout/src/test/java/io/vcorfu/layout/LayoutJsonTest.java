package io.vcorfu.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.protocol.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LayoutJsonTest {
  static final String EXAMPLE =
      "{\"clusterId\": \"c1\", \"epoch\": 1, \"sequencer\": \"127.0.0.1:9000\",\n"
          + " \"segments\": [{\"start\": 0, \"end\": -1, \"log\": [[\"127.0.0.1:9001\"],"
          + " [\"127.0.0.1:9002\"]], \"stream\": [[\"127.0.0.1:9003\"], [\"127.0.0.1:9004\"]]}]}";

  static Endpoint ep(int port) {
    return new Endpoint("127.0.0.1", port);
  }

  @Test
  void documentedExampleParsesToTheExpectedModel() {
    Layout layout = Layout.fromJson(EXAMPLE);
    assertThat(layout.clusterId()).isEqualTo("c1");
    assertThat(layout.epoch()).isEqualTo(1);
    assertThat(layout.sequencer()).isEqualTo(ep(9000));
    assertThat(layout.segments()).hasSize(1);
    Segment s = layout.segments().get(0);
    assertThat(s.start()).isZero();
    assertThat(s.isOpen()).isTrue();
    assertThat(s.log()).containsExactly(List.of(ep(9001)), List.of(ep(9002)));
    assertThat(s.stream()).containsExactly(List.of(ep(9003)), List.of(ep(9004)));
  }

  @Test
  void jsonRoundTripPreservesTheLayout() {
    Layout layout = Layout.fromJson(EXAMPLE);
    assertThat(Layout.fromJson(layout.toJson())).isEqualTo(layout);
    Layout multi =
        new Layout(
            "c2",
            7,
            ep(1),
            List.of(
                new Segment(0, 100, List.of(List.of(ep(2), ep(3))), List.of(List.of(ep(4)))),
                new Segment(
                    100, -1, List.of(List.of(ep(5))), List.of(List.of(ep(6)), List.of(ep(7))))));
    assertThat(Layout.fromJson(multi.toJson())).isEqualTo(multi);
  }

  @Test
  void withEpochChangesOnlyTheEpoch() {
    Layout layout = Layout.fromJson(EXAMPLE);
    Layout next = layout.withEpoch(2);
    assertThat(next.epoch()).isEqualTo(2);
    assertThat(next.withEpoch(1)).isEqualTo(layout);
  }

  @Test
  void singleNodePutsEveryRoleOnOneServerAtEpochOne() {
    Layout layout = Layout.singleNode(ep(9000), "solo");
    assertThat(layout.epoch()).isEqualTo(1);
    assertThat(layout.allServers()).containsExactly(ep(9000));
    assertThat(layout.logChain(12345)).containsExactly(ep(9000));
    assertThat(layout.streamChain(io.vcorfu.protocol.StreamId.of("x"))).containsExactly(ep(9000));
    assertThat(Layout.fromJson(layout.toJson())).isEqualTo(layout);
  }

  @Test
  void replicationAndRemovedRoundTripAndAreWrittenOnlyWhenSet() {
    Layout plain = Layout.fromJson(EXAMPLE);
    assertThat(plain.replication()).isZero();
    assertThat(plain.removed()).isEmpty();
    assertThat(plain.toJson()).doesNotContain("replication").doesNotContain("removed");

    Layout cluster =
        new Layout(
            "c3",
            4,
            ep(1),
            List.of(
                new Segment(
                    0,
                    -1,
                    List.of(List.of(ep(1), ep(3)), List.of(ep(3), ep(1))),
                    List.of(List.of(ep(3)), List.of(ep(1))))),
            2,
            List.of(ep(2), ep(4)));
    String json = cluster.toJson();
    assertThat(json)
        .contains("\"replication\":2")
        .contains("\"removed\":[\"127.0.0.1:2\",\"127.0.0.1:4\"]");
    assertThat(Layout.fromJson(json)).isEqualTo(cluster);
    assertThat(cluster.withEpoch(5).replication()).isEqualTo(2);
    assertThat(cluster.withEpoch(5).removed()).containsExactly(ep(2), ep(4));
    assertThat(json).doesNotContain("incarnations");

    Layout claimed = cluster.withIncarnation(ep(1), "i-1").withIncarnation(ep(3), "i-3");
    assertThat(claimed.toJson())
        .contains("\"incarnations\":{\"127.0.0.1:1\":\"i-1\",\"127.0.0.1:3\":\"i-3\"}");
    assertThat(Layout.fromJson(claimed.toJson())).isEqualTo(claimed);
    assertThat(claimed.withEpoch(5).incarnations()).containsEntry(ep(1), "i-1");
    assertThat(claimed.epoch()).isEqualTo(cluster.epoch());
  }

  static Stream<Arguments> invalidNewFields() {
    String head =
        "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\": [{\"start\": 0,"
            + " \"end\": -1, \"log\": [[\"h:1\", \"h:2\"]], \"stream\": [[\"h:2\"]]}]";
    return Stream.of(
        Arguments.of(head + ", \"replication\": \"two\"}", "'replication' must be an integer"),
        Arguments.of(head + ", \"streamSplits\": \"one\"}", "'streamSplits' must be an integer"),
        Arguments.of(head + ", \"streamSplits\": 1}", "only a cluster layout"),
        Arguments.of(
            head + ", \"replication\": 2, \"streamSplits\": 1}",
            "1 stream chains, which 1 splits in two cannot have made"),
        Arguments.of(
            head + ", \"replication\": 2, \"streamSplits\": 21}", "'streamSplits' must be from 0"),
        Arguments.of(head + ", \"replication\": -1}", "replication is -1"),
        Arguments.of(
            head + ", \"replication\": 1}", "has 2 replicas, more than the layout's replication 1"),
        Arguments.of(head + ", \"removed\": \"h:3\"}", "'removed' must be an array"),
        Arguments.of(
            head + ", \"removed\": [\"nohostport\"]}", "'removed' entry 0 is not a valid endpoint"),
        Arguments.of(
            head + ", \"removed\": [\"h:3\", \"h:3\"]}", "lists h:3 among its removed nodes twice"),
        Arguments.of(
            head + ", \"removed\": [\"h:2\"]}",
            "log chain 0 names h:2, which the layout lists as removed"),
        Arguments.of(
            head + ", \"removed\": [\"h:1\"]}", "sequencer h:1 is listed among its removed nodes"),
        Arguments.of(head + ", \"incarnations\": [\"x\"]}", "'incarnations' must be an object"),
        Arguments.of(
            head + ", \"incarnations\": {\"nohostport\": \"x\"}}",
            "entry 'nohostport' is not a \"host:port\" endpoint"),
        Arguments.of(head + ", \"incarnations\": {\"h:1\": 7}}", "entry 'h:1' must be a string"),
        Arguments.of(head + ", \"incarnations\": {\"h:1\": \" \"}}", "must be a non-empty string"),
        Arguments.of(
            head + ", \"removed\": [\"h:3\"], \"incarnations\": {\"h:3\": \"x\"}}",
            "records an incarnation of h:3, which it lists as removed"));
  }

  @Test
  void theConstructorRefusesARemovedNodeInAChain() {
    List<Endpoint> removed = new ArrayList<>(List.of(ep(3)));
    List<Segment> segments =
        List.of(new Segment(0, -1, List.of(List.of(ep(1))), List.of(List.of(ep(3)))));
    assertThatThrownBy(() -> new Layout("c", 1, ep(1), segments, 1, removed))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining("Segment 0 stream chain 0 names " + ep(3));
  }

  @ParameterizedTest
  @MethodSource("invalidNewFields")
  void invalidNewFieldsAreRejectedWithAClearMessage(String json, String expectedMessagePart) {
    assertThatThrownBy(() -> Layout.fromJson(json))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining(expectedMessagePart);
  }

  static Stream<Arguments> invalidDocuments() {
    String seg = "{\"start\": 0, \"end\": -1, \"log\": [[\"h:1\"]], \"stream\": [[\"h:2\"]]}";
    return Stream.of(
        Arguments.of("not json", "not valid JSON"),
        Arguments.of("[1]", "must be a JSON object"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\": []}",
            "has no segments"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": -1, \"sequencer\": \"h:1\", \"segments\": ["
                + seg
                + "]}",
            "must not be negative"),
        Arguments.of(
            "{\"epoch\": 1, \"sequencer\": \"h:1\", \"segments\": [" + seg + "]}",
            "missing the field 'clusterId'"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"nohostport\", \"segments\": ["
                + seg
                + "]}",
            "'sequencer' is not a valid endpoint"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\":"
                + " [{\"start\": 0, \"end\": -1, \"log\": [[\"h:99999\"]], \"stream\":"
                + " [[\"h:2\"]]}]}",
            "field 'log' chain 0 entry 0 is not a valid endpoint"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\":"
                + " [{\"start\": 0, \"end\": -1, \"log\": [[\"h:1\"], []], \"stream\":"
                + " [[\"h:2\"]]}]}",
            "empty log chain at index 1"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\": ["
                + "{\"start\": 0, \"end\": -1, \"log\": [[\"h:1\"]], \"stream\": []}]}",
            "has no stream chains"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\": ["
                + "{\"start\": 0, \"end\": 10, \"log\": [[\"h:1\"]], \"stream\": [[\"h:2\"]]},"
                + "{\"start\": 12, \"end\": -1, \"log\": [[\"h:1\"]], \"stream\": [[\"h:2\"]]}]}",
            "gap between segment 0"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\": ["
                + "{\"start\": 0, \"end\": 10, \"log\": [[\"h:1\"]], \"stream\": [[\"h:2\"]]},"
                + "{\"start\": 5, \"end\": -1, \"log\": [[\"h:1\"]], \"stream\": [[\"h:2\"]]}]}",
            "overlaps segment 1"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\": ["
                + "{\"start\": 0, \"end\": -1, \"log\": [[\"h:1\"]], \"stream\": [[\"h:2\"]]},"
                + "{\"start\": 5, \"end\": -1, \"log\": [[\"h:1\"]], \"stream\": [[\"h:2\"]]}]}",
            "only the last segment may be"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\": ["
                + "{\"start\": 0, \"end\": 10, \"log\": [[\"h:1\"]], \"stream\": [[\"h:2\"]]}]}",
            "must be open-ended"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"segments\":"
                + " [{\"start\": 0, \"end\": -1, \"log\": [[\"h:1\", \"h:1\"]], \"stream\":"
                + " [[\"h:2\"]]}]}",
            "lists h:1 more than once"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": 1, \"sequencer\": \"h:1\", \"sequencers\": \"h:1\","
                + " \"segments\": ["
                + seg
                + "]}",
            "unknown field 'sequencers'"),
        Arguments.of(
            "{\"clusterId\": \"c\", \"epoch\": \"one\", \"sequencer\": \"h:1\", \"segments\": ["
                + seg
                + "]}",
            "'epoch' must be an integer"));
  }

  @ParameterizedTest
  @MethodSource("invalidDocuments")
  void invalidDocumentIsRejectedWithAClearMessage(String json, String expectedMessagePart) {
    assertThatThrownBy(() -> Layout.fromJson(json))
        .isInstanceOf(LayoutException.class)
        .hasMessageContaining(expectedMessagePart);
  }
}
