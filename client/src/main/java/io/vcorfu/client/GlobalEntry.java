package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import java.util.Map;

/** One decided global address: data with its stream slots, or a hole. */
public record GlobalEntry(
    long globalAddress, boolean isHole, Map<StreamId, Long> streamAddresses, byte[] payload) {}
