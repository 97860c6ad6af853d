package io.vcorfu.collections;

import java.util.Objects;

/**
 * Where a forked {@link CSMRMap} starts: its parent map and the parent's version (a global address)
 * the fork was taken at. Written to the fork's layout stream when the fork is created, so every
 * client opening the fork by name finds the same base.
 *
 * @param parent the parent map's name
 * @param version the global address of the parent's state the fork starts from (-1: empty)
 */
public record ForkBase(String parent, long version) {
  public ForkBase {
    Objects.requireNonNull(parent, "parent");
  }
}
