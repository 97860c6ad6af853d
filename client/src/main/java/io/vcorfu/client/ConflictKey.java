package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import java.util.Arrays;

/**
 * A key of a stream that a transaction read or wrote, as the sequencer's conditional issuance
 * checks it. An empty key stands for the whole stream.
 */
public record ConflictKey(StreamId stream, byte[] key) {

  @Override
  public boolean equals(Object o) {
    return o instanceof ConflictKey k && stream.equals(k.stream) && Arrays.equals(key, k.key);
  }

  @Override
  public int hashCode() {
    return 31 * stream.hashCode() + Arrays.hashCode(key);
  }

  @Override
  public String toString() {
    return "ConflictKey[" + stream + ", " + key.length + " bytes]";
  }
}
