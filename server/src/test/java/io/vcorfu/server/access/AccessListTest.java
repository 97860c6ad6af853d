package io.vcorfu.server.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** What grants allow: by principal, prefix and permission, and nothing no grant allows. */
class AccessListTest {
  private static final AccessList GRANTS =
      AccessList.EMPTY
          .grant(new Grant("CN=alice", "a/", EnumSet.of(Permission.READ, Permission.WRITE)))
          .grant(new Grant("*", "public/", EnumSet.of(Permission.READ)))
          .grant(new Grant("CN=ops", "", EnumSet.of(Permission.ADMIN, Permission.TRIM)))
          .grant(new Grant("CN=node-2", "", EnumSet.of(Permission.NODE)));

  @Test
  void aGrantCoversItsPrincipalsStreamsUnderItsPrefixOnly() {
    assertThat(GRANTS.allows("CN=alice", Permission.WRITE, "a/orders")).isTrue();
    assertThat(GRANTS.allows("CN=alice", Permission.WRITE, "a")).isFalse();
    assertThat(GRANTS.allows("CN=alice", Permission.WRITE, "b/orders")).isFalse();
    assertThat(GRANTS.allows("CN=alice", Permission.TRIM, "a/orders")).isFalse();
    assertThat(GRANTS.allows("CN=alice", Permission.READ, null)).as("an unnamed stream").isFalse();
    assertThat(GRANTS.allows("CN=bob", Permission.READ, "a/orders")).isFalse();
    assertThat(GRANTS.allows("CN=bob", Permission.READ, "public/news")).isTrue();
    assertThat(GRANTS.allows("CN=bob", Permission.WRITE, "public/news")).isFalse();
    assertThat(GRANTS.allows("CN=ops", Permission.TRIM, null)).isTrue();
    assertThat(GRANTS.allows("CN=ops", Permission.READ, "a/orders")).isFalse();
    assertThat(GRANTS.allows("CN=node-2", Permission.READ, "a/orders")).isTrue();
    assertThat(GRANTS.isNode("CN=node-2")).isTrue();
    assertThat(GRANTS.isNode("CN=ops")).isFalse();
    assertThat(GRANTS.readsOrWritesSomething("CN=bob")).as("via *").isTrue();
    assertThat(AccessList.EMPTY.readsOrWritesSomething("CN=bob")).isFalse();
  }

  @Test
  void grantsMergeAndRevokesTakeOnlyWhatTheyName() {
    AccessList more = GRANTS.grant(new Grant("CN=alice", "a/", EnumSet.of(Permission.TRIM)));
    assertThat(more.grants()).hasSize(GRANTS.grants().size());
    assertThat(more.allows("CN=alice", Permission.TRIM, "a/x")).isTrue();
    AccessList less = more.revoke("CN=alice", "a/", EnumSet.of(Permission.WRITE, Permission.TRIM));
    assertThat(less.allows("CN=alice", Permission.READ, "a/x")).isTrue();
    assertThat(less.allows("CN=alice", Permission.WRITE, "a/x")).isFalse();
    assertThat(less.revoke("CN=alice", "a/", EnumSet.of(Permission.READ)).grants())
        .noneMatch(g -> g.principal().equals("CN=alice"));
    assertThat(less.revoke("CN=alice", "b/", EnumSet.of(Permission.READ))).isEqualTo(less);
  }

  @Test
  void theJsonFormRoundTripsAndBadJsonSaysWhatIsWrong() {
    assertThat(AccessList.fromJson(GRANTS.toJson())).isEqualTo(GRANTS);
    assertThat(AccessList.fromJson(new byte[0])).isEqualTo(AccessList.EMPTY);
    assertThatThrownBy(() -> AccessList.fromJson("{".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("the grants are not JSON");
    assertThatThrownBy(() -> AccessList.fromJson("[]".getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("\"grants\" array");
    assertThatThrownBy(
            () ->
                AccessList.fromJson(
                    "{\"grants\":[{\"principal\":\"x\",\"permissions\":[\"fly\"]}]}"
                        .getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("'fly' is not a permission");
    assertThatThrownBy(() -> new Grant("CN=x", "a/", EnumSet.of(Permission.NODE)))
        .hasMessageContaining("whole cluster");
  }
}
