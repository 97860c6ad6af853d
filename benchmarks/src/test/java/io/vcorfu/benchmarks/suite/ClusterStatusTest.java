package io.vcorfu.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ClusterStatusTest {
  private static ClusterStatus status(String json) throws Exception {
    return new ClusterStatus(new ObjectMapper().readTree(json.replace('\'', '"')));
  }

  @Test
  void fullStrengthNeedsALayoutAndNoRebuildingRemovedOrShortChain() throws Exception {
    assertThat(status("{}").healthy()).isFalse();
    assertThat(status("{'layout':{'epoch':3,'removed':[],'rebuilding':{}}}").healthy()).isTrue();
    assertThat(status("{'layout':{'epoch':3,'removed':['h:3']}}").healthy()).isFalse();
    assertThat(status("{'layout':{'epoch':3,'rebuilding':{'h:3':1}}}").healthy()).isFalse();
    assertThat(status("{'layout':{'epoch':3},'underReplicated':['s1']}").healthy()).isFalse();
    assertThat(status("{'layout':{'epoch':3},'underReplicated':[]}").healthy()).isTrue();
  }

  @Test
  void removedStrongAndMemberReadTheLayout() throws Exception {
    ClusterStatus s =
        status(
            "{'layout':{'removed':['h:3'],'rebuilding':{'h:4':5},"
                + "'segments':[{'log':[['h:1','h:2']],'stream':[['h:2','h:4']]}]}}");
    assertThat(s.removed("h:3")).isTrue();
    assertThat(s.removed("h:1")).isFalse();
    assertThat(s.strong("h:3")).isFalse();
    assertThat(s.member("h:2")).isTrue();
    assertThat(s.member("h:4")).as("in a chain but rebuilding").isFalse();
    assertThat(s.member("h:3")).isFalse();
    assertThat(status("{'layout':{'removed':['h:3']}}").strong("h:3")).isTrue();
  }

  @Test
  void progressAndRebuildsComeFromTheNodesThatReportOne() throws Exception {
    ClusterStatus s =
        status(
            "{'nodes':[{'endpoint':'h:1'},"
                + "{'endpoint':'h:3',"
                + "'rebuild':{'entriesCopied':12,'bytesCopied':4096,'done':true}},"
                + "{'endpoint':'h:4',"
                + "'rebuild':{'entriesCopied':0,'bytesCopied':0,'done':false}}]}");
    assertThat(s.progress("h:1")).isEmpty();
    assertThat(s.progress("h:3")).contains(new ClusterStatus.Progress(12, 4096, true));
    assertThat(s.rebuilds())
        .containsExactly(
            new ClusterStatus.Rebuild("h:3", 12, 4096), new ClusterStatus.Rebuild("h:4", 0, 0));
  }
}
