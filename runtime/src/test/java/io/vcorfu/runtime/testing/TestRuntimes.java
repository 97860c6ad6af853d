package io.vcorfu.runtime.testing;

import io.vcorfu.client.StreamLog;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A runtime per test: one {@link TestStreamLogs} and the runtimes a test opened on it, all closed
 * after the test. Register it with {@code @RegisterExtension}; {@link #close} may also be called
 * directly, more than once. Thread-safe.
 */
public class TestRuntimes implements AutoCloseable, AfterEachCallback {
  private final TestStreamLogs logs = TestStreamLogs.create();
  private final List<VCorfuRuntime> runtimes = new ArrayList<>();
  private boolean closed;

  /** A new runtime on a new client of the log, with default options; closed after the test. */
  public VCorfuRuntime runtime() {
    return register(logs.newRuntime());
  }

  /** A new runtime on a new client of the log, with {@code options}; closed after the test. */
  public VCorfuRuntime runtime(RuntimeOptions options) {
    return register(logs.newRuntime(options));
  }

  /** A new runtime on {@code log} (the runtime owns it), with default options. */
  public VCorfuRuntime runtime(StreamLog log) {
    return register(VCorfuRuntime.using(log));
  }

  /** A new runtime on {@code log} (the runtime owns it), with {@code options}. */
  public VCorfuRuntime runtime(StreamLog log, RuntimeOptions options) {
    return register(VCorfuRuntime.using(log, options));
  }

  /** Closes {@code rt} after the test; returns it. */
  public VCorfuRuntime register(VCorfuRuntime rt) {
    synchronized (runtimes) {
      runtimes.add(rt);
    }
    return rt;
  }

  /** The runtimes opened so far, in order. */
  public List<VCorfuRuntime> runtimes() {
    synchronized (runtimes) {
      return List.copyOf(runtimes);
    }
  }

  /** A new client of the log, owned by the caller. */
  public StreamLog newLog() {
    return logs.newLog();
  }

  /** The log's global tail now, asked by a client of its own. */
  public long globalTail() {
    try (StreamLog probe = newLog()) {
      return probe.tails(List.of()).join().globalTail();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    close();
  }

  @Override
  public void close() {
    synchronized (runtimes) {
      if (closed) {
        return;
      }
      closed = true;
      runtimes.forEach(VCorfuRuntime::close);
    }
    logs.close();
  }
}
