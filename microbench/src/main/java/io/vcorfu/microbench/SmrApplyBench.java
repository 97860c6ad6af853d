package io.vcorfu.microbench;

import io.vcorfu.collections.SMRMap;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.runtime.proxy.ClassModel;
import io.vcorfu.runtime.proxy.MethodModel;
import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.smr.SmrRecord;
import io.vcorfu.runtime.smr.UpcallRunner;
import io.vcorfu.runtime.smr.UpdateCodec;
import java.util.List;
import java.util.Random;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * The SMR engine's two ends of an update of an {@link SMRMap} (a put of a 1 KiB value under one of
 * 1,024 keys): the write side encodes the call into an entry's payload; the apply side, what a view
 * does for each entry it plays, decodes the payload and its arguments and runs the method on the
 * object's state.
 */
public class SmrApplyBench extends Microbenchmark {
  private static final int KEYS = 1024;
  private static final StreamId STREAM = StreamId.of("map");

  private DefaultSerializer serializer;
  private MethodModel put;
  private Object state;
  private byte[][] payloads;
  private String[] keys;
  private byte[] value;
  private int next;

  @Setup
  public void setUp() throws Exception {
    serializer = new DefaultSerializer();
    ClassModel model = ClassModel.of(SMRMap.class);
    put =
        model.method(
            MethodModel.signatureOf(
                SMRMap.class.getDeclaredMethod("putEntry", Object.class, Object.class)));
    state = model.newState();
    value = new byte[1024];
    new Random(1).nextBytes(value);
    keys = new String[KEYS];
    payloads = new byte[KEYS][];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "key-" + i;
      payloads[i] = encode(keys[i]);
    }
  }

  private byte[] encode(String key) {
    return SmrRecord.encode(
        List.of(UpdateCodec.toUpdate(STREAM, put, new Object[] {key, value}, serializer)));
  }

  /** A call encoded into the payload of its entry. */
  @Benchmark
  public byte[] encodeUpdate() {
    return encode(keys[next++ & (KEYS - 1)]);
  }

  /** An entry's payload decoded and applied to the map's state. */
  @Benchmark
  public Object applyUpdate() throws Exception {
    Object result = null;
    for (SmrRecord.Update u : SmrRecord.decode(payloads[next++ & (KEYS - 1)])) {
      result = UpcallRunner.apply(state, put, UpdateCodec.decodeArgs(u.args(), serializer));
    }
    return result;
  }
}
