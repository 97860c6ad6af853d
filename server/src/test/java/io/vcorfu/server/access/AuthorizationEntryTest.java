package io.vcorfu.server.access;

import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.protocol.RpcHandler;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Which nodes take lone token requests in their fixed layout: those that do not authorize by stream
 * name, since a fixed ask carries the stream by its id alone.
 */
class AuthorizationEntryTest {
  private static final RpcHandler NEXT = r -> CompletableFuture.completedFuture(null);

  @Test
  void aNodeWithoutAuthorizationTakesFixedTokenAsks() {
    assertThat(Authorization.entry(null, () -> null, NEXT).takesLoneTokens()).isTrue();
  }

  @Test
  void aNodeThatAuthorizesByStreamNameDoesNot() {
    AccessConfig config = new AccessConfig(Path.of("acl.json"), "CN=node");
    assertThat(Authorization.entry(config, () -> null, NEXT).takesLoneTokens()).isFalse();
  }
}
