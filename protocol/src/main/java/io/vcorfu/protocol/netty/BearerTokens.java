package io.vcorfu.protocol.netty;

/**
 * The bearer tokens a node accepts from clients without a certificate (see {@link
 * NettyTransport#acceptBearerTokens}). Implementations must be thread-safe and must not reveal the
 * token through timing beyond what a lookup by a hash of it does.
 */
@FunctionalInterface
public interface BearerTokens {
  /** The principal {@code token} authenticates, or null when it is not one this node accepts. */
  String principalOf(String token);
}
