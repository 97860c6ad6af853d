package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import java.util.Map;

/**
 * Tails from the sequencer. Per stream asked for, {@code streamTails} is the last issued stream
 * address and {@code streamLastGlobal} the global address of the stream's last entry (both -1 if
 * none). {@code globalTail} is the last issued global address (-1 if none) when no stream was asked
 * for; with streams it is a point of the log consistent with their tails (every entry of those
 * streams at or below it is within the tails, every later one lies beyond it), and may be below the
 * log's tail when the answer comes from a read lease.
 */
public record Tails(
    long globalTail, Map<StreamId, Long> streamTails, Map<StreamId, Long> streamLastGlobal) {}
