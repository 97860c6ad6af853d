package io.vcorfu.collections.internal;

import io.vcorfu.protocol.StreamId;

/**
 * What every client of one B-tree must agree on: the root node's stream, the root's level (0 when
 * the root is a leaf) and the fanout chosen when the tree was created.
 */
public record TreeInfo(StreamId root, int rootLevel, int fanout) {}
