package io.vcorfu.logunit.internal;

import io.vcorfu.protocol.proto.ReadResult;

/**
 * What one address will be answered with, decided under the engine's monitor: a status, plus the
 * record when there is one. The bytes are loaded after the barrier, outside the monitor.
 */
public record PlannedRead(
    io.vcorfu.protocol.StreamId ns, long address, ReadResult.Status status, IndexedRecord record) {}
