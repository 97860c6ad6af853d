package io.vcorfu.runtime.stream;

import io.vcorfu.protocol.StreamId;
import java.util.Map;

/**
 * Tails from the sequencer. {@code globalTail} is the last issued global address (-1 if none);
 * per stream, {@code streamTails} is the last issued stream address and {@code streamLastGlobal}
 * the global address of the stream's last entry (both -1 if none).
 */
public record Tails(long globalTail, Map<StreamId, Long> streamTails, Map<StreamId, Long> streamLastGlobal) {}
