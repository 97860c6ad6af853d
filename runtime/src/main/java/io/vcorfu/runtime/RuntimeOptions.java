package io.vcorfu.runtime;

import io.vcorfu.runtime.serialization.DefaultSerializer;
import io.vcorfu.runtime.serialization.Serializer;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link VCorfuRuntime}.
 *
 * @param serializer serializer of objects opened without one of their own
 * @param maxTransactionAttempts how many times {@link VCorfuRuntime#transaction} and
 *     {@code @TransactionalMethod} run a transaction before giving up with the last abort
 * @param backoffInitial pause after the first abort; doubled after each further abort
 * @param backoffMax upper bound of the pause (a random jitter of up to half of it is applied)
 * @param ioTimeout how long a call waits for the stream log before failing with {@link
 *     io.vcorfu.protocol.RpcTimeoutException}
 */
public record RuntimeOptions(Serializer serializer, int maxTransactionAttempts,
    Duration backoffInitial, Duration backoffMax, Duration ioTimeout) {

  public RuntimeOptions {
    Objects.requireNonNull(serializer, "serializer");
    if (maxTransactionAttempts < 1) {
      throw new IllegalArgumentException("maxTransactionAttempts must be at least 1");
    }
    if (backoffInitial.isNegative() || backoffMax.compareTo(backoffInitial) < 0) {
      throw new IllegalArgumentException("need 0 <= backoffInitial <= backoffMax");
    }
    if (ioTimeout.isNegative() || ioTimeout.isZero()) {
      throw new IllegalArgumentException("ioTimeout must be positive");
    }
  }

  /** A fresh {@link DefaultSerializer}, 20 attempts, backoff 1 ms doubling to 100 ms, 30 s I/O timeout. */
  public static RuntimeOptions defaults() {
    return new RuntimeOptions(new DefaultSerializer(), 20, Duration.ofMillis(1),
        Duration.ofMillis(100), Duration.ofSeconds(30));
  }

  public RuntimeOptions withSerializer(Serializer s) {
    return new RuntimeOptions(s, maxTransactionAttempts, backoffInitial, backoffMax, ioTimeout);
  }

  public RuntimeOptions withMaxTransactionAttempts(int n) {
    return new RuntimeOptions(serializer, n, backoffInitial, backoffMax, ioTimeout);
  }

  public RuntimeOptions withBackoff(Duration initial, Duration max) {
    return new RuntimeOptions(serializer, maxTransactionAttempts, initial, max, ioTimeout);
  }

  public RuntimeOptions withIoTimeout(Duration timeout) {
    return new RuntimeOptions(serializer, maxTransactionAttempts, backoffInitial, backoffMax, timeout);
  }
}
