package io.vcorfu.microbench;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.RpcHandler;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ChainStep;
import io.vcorfu.protocol.proto.ChainWriteRequest;
import io.vcorfu.protocol.proto.EntryKind;
import io.vcorfu.protocol.proto.Header;
import io.vcorfu.protocol.proto.LogEntryMsg;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.SequencedWriteRequest;
import io.vcorfu.protocol.proto.StreamSlot;
import io.vcorfu.protocol.proto.TokenRequest;
import io.vcorfu.server.access.AccessConfig;
import io.vcorfu.server.access.AccessList;
import io.vcorfu.server.access.Authorization;
import io.vcorfu.server.access.Grant;
import io.vcorfu.server.access.Permission;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * What authorization adds to a request on the node: the check of a sequenced write (one stream,
 * what a client sends per append) and of a chain write of a two-stream entry, against grants to
 * {@code principals} principals of one prefix each, the caller's among them, behind a handler that
 * answers at once; and the same handler without authorization. The difference is the check's cost
 * per request.
 */
public class AuthorizationBench extends Microbenchmark {
  private static final CompletableFuture<Response> DONE =
      CompletableFuture.completedFuture(Response.getDefaultInstance());

  @Param({"10", "1000"})
  int principals;

  private RpcHandler checked;
  private RpcHandler unchecked;
  private Request append;
  private Request chain;
  private String caller;

  @Setup
  public void setUp() {
    AccessList grants = AccessList.EMPTY;
    for (int i = 0; i < principals; i++) {
      grants =
          grants.grant(
              new Grant(
                  "CN=app-" + i,
                  "tenant-" + i + "/",
                  EnumSet.of(Permission.READ, Permission.WRITE)));
    }
    AccessList fixed = grants;
    caller = "CN=app-" + (principals / 2);
    RpcHandler next = r -> DONE;
    checked = Authorization.entry(new AccessConfig(null, "CN=node"), () -> () -> fixed, next);
    unchecked = Authorization.entry(null, () -> null, next);
    StreamId s = StreamId.of("tenant-" + (principals / 2) + "/orders");
    StreamId t = StreamId.of("tenant-" + (principals / 2) + "/audit");
    Header header = Header.newBuilder().setEpoch(3).setClusterId("bench").build();
    append =
        Request.newBuilder()
            .setHeader(header)
            .setSequencedWrite(
                SequencedWriteRequest.newBuilder()
                    .setToken(TokenRequest.newBuilder().addStreams(s.toMsg()))
                    .setPayload(ByteString.copyFrom(new byte[1024]))
                    .setNonce(42))
            .build();
    LogEntryMsg entry =
        LogEntryMsg.newBuilder()
            .setGlobalAddress(7)
            .setKind(EntryKind.DATA)
            .addSlots(StreamSlot.newBuilder().setStream(s.toMsg()).setStreamAddress(3))
            .addSlots(StreamSlot.newBuilder().setStream(t.toMsg()).setStreamAddress(5))
            .setPayload(ByteString.copyFrom(new byte[1024]))
            .build();
    chain =
        Request.newBuilder()
            .setHeader(header)
            .setChainWrite(
                ChainWriteRequest.newBuilder()
                    .setEntry(entry)
                    .addSteps(ChainStep.newBuilder().setLog(true))
                    .addSteps(ChainStep.newBuilder().addAllSlots(entry.getSlotsList())))
            .build();
  }

  @Benchmark
  public CompletableFuture<Response> appendChecked() {
    return checked.handle(append, caller);
  }

  @Benchmark
  public CompletableFuture<Response> appendUnchecked() {
    return unchecked.handle(append, caller);
  }

  @Benchmark
  public CompletableFuture<Response> chainWriteChecked() {
    return checked.handle(chain, caller);
  }

  @Benchmark
  public CompletableFuture<Response> chainWriteUnchecked() {
    return unchecked.handle(chain, caller);
  }
}
