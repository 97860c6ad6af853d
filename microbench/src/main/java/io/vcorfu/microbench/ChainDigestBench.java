package io.vcorfu.microbench;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.ChainDigests;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * What tamper evidence costs per entry: the SHA-256 digest a replica computes of an entry it stores
 * (and again of one it serves from disk), for a {@code size}-byte value, against the CRC32C every
 * stored record already carries; and one link of a stream's chain (what a head costs per position).
 */
public class ChainDigestBench extends Microbenchmark {
  @Param({"100", "1024", "16384"})
  int size;

  private byte[] entry;
  private byte[] head;
  private byte[] digest;

  @Setup
  public void setUp() {
    byte[] value = new byte[size];
    new Random(1).nextBytes(value);
    entry =
        LogEntryMsg.newBuilder()
            .setGlobalAddress(123_456_789L)
            .setKind(EntryKind.DATA)
            .setEpoch(7)
            .setNonce(0x1234_5678_9abc_def1L)
            .addSlots(
                StreamSlot.newBuilder()
                    .setStream(StreamId.of("bench").toMsg())
                    .setStreamAddress(42))
            .setPayload(ByteString.copyFrom(value))
            .build()
            .toByteArray();
    head = ChainDigests.seed(StreamId.of("bench"));
    digest = ChainDigests.ofEntry(entry);
  }

  @Benchmark
  public byte[] entryDigest() {
    return ChainDigests.ofEntry(entry);
  }

  @Benchmark
  public long entryCrc32c() {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(entry);
    return crc.getValue();
  }

  @Benchmark
  public byte[] chainLink() {
    return ChainDigests.link(head, 42, digest);
  }
}
