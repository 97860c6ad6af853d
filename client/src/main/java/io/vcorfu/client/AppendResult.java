package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import java.util.Map;

/** Where an append landed: its global address and its address in each stream. */
public record AppendResult(long globalAddress, Map<StreamId, Long> streamAddresses) {}
