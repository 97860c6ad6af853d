package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;

/**
 * One decided slot of a stream: data written at {@code globalAddress}, or a hole (a fill decided by
 * the chain, which carries no payload and, when the filler never learnt it, a global address of
 * -1).
 */
public record StreamEntry(
    StreamId stream, long streamAddress, long globalAddress, boolean isHole, byte[] payload) {}
