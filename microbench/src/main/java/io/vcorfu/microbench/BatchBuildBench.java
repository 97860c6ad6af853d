package io.vcorfu.microbench;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.StreamSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;

/**
 * Building the messages of a batch for one node: for 32 tokens and their 1 KiB payloads, the chain
 * write requests a node receives (the entry, its log step and its stream step), sized for one
 * buffer; time per entry. The cost a batching sequencer node pays per entry and per replica before
 * anything reaches a socket.
 */
public class BatchBuildBench extends Microbenchmark {
  static final int BATCH = 32;
  private static final StreamId STREAM = StreamId.of("s");

  private ByteString[] payloads;
  private long next;

  @Setup
  public void setUp() {
    Random random = new Random(1);
    payloads = new ByteString[BATCH];
    for (int i = 0; i < BATCH; i++) {
      byte[] b = new byte[1024];
      random.nextBytes(b);
      payloads[i] = ByteString.copyFrom(b);
    }
  }

  /** The requests of one batch and the size of the buffer they take. */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long buildBatch() {
    List<Request> batch = new ArrayList<>(BATCH);
    long bytes = 0;
    for (int i = 0; i < BATCH; i++) {
      long g = next++;
      StreamSlot slot =
          StreamSlot.newBuilder()
              .setStream(STREAM.toMsg())
              .setStreamAddress(g)
              .setBackpointer(g - 1)
              .build();
      Request r =
          Request.newBuilder()
              .setHeader(Header.newBuilder().setRequestId(g).setEpoch(3))
              .setChainWrite(
                  ChainWriteRequest.newBuilder()
                      .setEntry(
                          LogEntryMsg.newBuilder()
                              .setGlobalAddress(g)
                              .setKind(EntryKind.DATA)
                              .addSlots(slot)
                              .setPayload(payloads[i])
                              .setEpoch(3)
                              .setNonce(g * 31 + 7))
                      .addSteps(ChainStep.newBuilder().setLog(true))
                      .addSteps(ChainStep.newBuilder().addSlots(slot).setCommit(true))
                      .setCommitEarlier(true))
              .build();
      bytes += 4 + r.getSerializedSize();
      batch.add(r);
    }
    return bytes + batch.size();
  }
}
