package io.vcorfu.server.views;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.client.ViewCall;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.NotServingException;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.proto.ViewCallRequest;
import io.vcorfu.runtime.ReadOnlyViewException;
import io.vcorfu.runtime.RemoteCallException;
import io.vcorfu.runtime.TransactionAbortedException;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.Account;
import io.vcorfu.runtime.example.Counter;
import io.vcorfu.runtime.example.User;
import io.vcorfu.server.InProcessCluster;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Remote views against a five-node in-process cluster (the objects are hosted by the stream
 * replicas).
 */
class RemoteViewTest {
  private static final Logger LOG = LoggerFactory.getLogger(RemoteViewTest.class);

  @TempDir Path tmp;
  private InProcessCluster cluster;
  private final List<VCorfuRuntime> runtimes = new ArrayList<>();

  @BeforeEach
  void start() {
    cluster = InProcessCluster.fiveNodes(tmp);
  }

  @AfterEach
  void stop() {
    runtimes.forEach(VCorfuRuntime::close);
    cluster.close();
  }

  private ClusterStreamLog log() {
    return cluster.client(StreamLogOptions.defaults());
  }

  private VCorfuRuntime runtime() {
    VCorfuRuntime rt =
        VCorfuRuntime.using(
            ClusterStreamLog.connect(
                cluster.transport(), InProcessCluster.SEQUENCER, StreamLogOptions.defaults()));
    runtimes.add(rt);
    return rt;
  }

  private static <T> T remote(VCorfuRuntime rt, String name, Class<T> type) {
    return rt.objects().builder(name, type).remote().open();
  }

  /** A call's value, or the class name of what it threw (on the host, for a remote view). */
  private static Object outcome(Supplier<Object> call) {
    try {
      return call.get();
    } catch (RemoteCallException e) {
      return "threw " + e.remoteType();
    } catch (RuntimeException e) {
      return "threw " + e.getClass().getName();
    }
  }

  private record Expected(long address, long counter, long balance) {}

  @ParameterizedTest
  @ValueSource(longs = {7, 1_234, 99_001})
  void remoteAndLocalViewsAgreeOnEveryAccessorResult(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    VCorfuRuntime localRt = runtime();
    VCorfuRuntime remoteRt = runtime();
    ClusterStreamLog probe = log();
    Counter lc = localRt.objects().open("counter", Counter.class);
    Counter rc = remote(remoteRt, "counter", Counter.class);
    Counter refC = new Counter();
    Account la = localRt.objects().open("account", Account.class);
    Account ra = remote(remoteRt, "account", Account.class);
    Account refA = new Account();
    User lu = localRt.objects().open("user", User.class);
    User ru = remote(remoteRt, "user", User.class);
    User refU = new User();
    List<Expected> snapshots = new ArrayList<>();
    String[] passwords = {"alpha", "beta"};

    for (int i = 0; i < 150; i++) {
      boolean viaRemote = random.nextBoolean();
      Counter c = viaRemote ? rc : lc;
      Account a = viaRemote ? ra : la;
      User u = viaRemote ? ru : lu;
      long d = random.nextInt(50) - 10;
      Instant when = Instant.ofEpochSecond(1_700_000_000L + i);
      String pass = passwords[random.nextInt(passwords.length)];
      switch (random.nextInt(8)) {
        case 0 -> {
          c.add(d);
          refC.add(d);
        }
        case 1 ->
            assertThat(c.addAndGet(d)).as("addAndGet at step %d", i).isEqualTo(refC.addAndGet(d));
        case 2 -> {
          a.deposit(Math.abs(d));
          refA.deposit(Math.abs(d));
        }
        case 3 ->
            assertThat(a.tryWithdraw(Math.abs(d)))
                .as("tryWithdraw at step %d", i)
                .isEqualTo(refA.tryWithdraw(Math.abs(d)));
        case 4 -> {
          a.withdraw(1);
          refA.withdraw(1);
        }
        case 5 -> {
          u.register("ada", pass);
          refU.register("ada", pass);
        }
        case 6 ->
            assertThat(outcome(() -> u.login(pass, when)))
                .as("login at step %d", i)
                .isEqualTo(outcome(() -> refU.login(pass, when)));
        default -> {
          u.logout(when);
          refU.logout(when);
        }
      }
      assertThat(rc.get())
          .as("remote counter at step %d", i)
          .isEqualTo(refC.get())
          .isEqualTo(lc.get());
      assertThat(rc.upcalls()).isEqualTo(refC.upcalls()).isEqualTo(lc.upcalls());
      assertThat(ra.balance())
          .as("remote balance at step %d", i)
          .isEqualTo(refA.balance())
          .isEqualTo(la.balance());
      if (i % 25 == 0) {
        snapshots.add(
            new Expected(probe.tails(List.of()).join().globalTail(), refC.get(), refA.balance()));
      }
    }

    for (Expected e : snapshots) {
      Counter remoteAt =
          remoteRt.objects().builder("counter", Counter.class).remote().asOf(e.address()).open();
      Counter localAt =
          localRt.objects().builder("counter", Counter.class).asOf(e.address()).open();
      Account accountAt =
          remoteRt.objects().builder("account", Account.class).remote().asOf(e.address()).open();
      assertThat(remoteAt.get())
          .as("remote snapshot as of %d", e.address())
          .isEqualTo(e.counter())
          .isEqualTo(localAt.get());
      assertThat(accountAt.balance()).isEqualTo(e.balance());
      assertThatThrownBy(() -> remoteAt.add(1)).isInstanceOf(ReadOnlyViewException.class);
    }
  }

  @Test
  void remoteAccessorsInATransactionSeeItsSnapshotAndItsOwnBufferedWrites() {
    VCorfuRuntime rt = runtime();
    Counter c = remote(rt, "tx-counter", Counter.class);
    Counter other = runtime().objects().open("tx-counter", Counter.class);
    other.add(10);

    rt.TXBegin();
    assertThat(c.get()).isEqualTo(10);
    other.add(5);
    assertThat(c.get()).as("the transaction's snapshot").isEqualTo(10);
    c.add(3);
    assertThat(c.get()).as("its own buffered write").isEqualTo(13);
    assertThat(c.addAndGet(2))
        .as("a mutator-accessor on the snapshot plus the buffered writes")
        .isEqualTo(15);
    assertThatThrownBy(rt::TXEnd)
        .as("the remote read joined the read set")
        .isInstanceOf(TransactionAbortedException.class);
    assertThat(c.get()).isEqualTo(15);

    rt.TXBegin();
    c.add(3);
    assertThat(c.get()).isEqualTo(18);
    assertThat(c.addAndGet(2)).isEqualTo(20);
    rt.TXEnd();
    assertThat(c.get()).isEqualTo(20);
    assertThat(other.get()).isEqualTo(20);
  }

  @Test
  void anExceptionThrownByARemoteAccessorArrivesTypedWithItsMessage() {
    VCorfuRuntime rt = runtime();
    Thermometer t = remote(rt, "thermometer", Thermometer.class);
    assertThatThrownBy(t::read)
        .isInstanceOfSatisfying(
            RemoteCallException.class,
            e -> {
              assertThat(e.remoteType()).isEqualTo(IllegalStateException.class.getName());
              assertThat(e.remoteMessage()).isEqualTo("no reading was recorded yet");
              assertThat(e.method()).isEqualTo("read()");
            });
    t.record(21.5);
    assertThat(t.read()).isEqualTo(21.5);
  }

  @Test
  void aTypeTheHostCannotLoadFailsWithAMessageNamingIt() {
    ViewCall call =
        new ViewCall(
            StreamId.of("ghost"), "com.example.NoSuchObject", "get()", List.of(), -2, List.of());
    assertThatThrownBy(() -> log().viewCall(call).join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("cannot load class com.example.NoSuchObject");
  }

  /** Records whether the class's constructor ever ran on the host. */
  public static final class NotAnObject {
    static volatile boolean constructed;

    public NotAnObject() {
      constructed = true;
    }

    public int get() {
      return 1;
    }
  }

  @Test
  void aClassThatIsNoObjectClassIsRefusedBeforeAnyOfItsCodeRuns() {
    for (String type : List.of(NotAnObject.class.getName(), "java.util.ArrayList")) {
      ViewCall call =
          new ViewCall(StreamId.of("not-an-object"), type, "get()", List.of(), -2, List.of());
      assertThatThrownBy(() -> log().viewCall(call).join())
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(BadRequestException.class)
          .hasMessageContaining("runs only object classes");
    }
    assertThat(NotAnObject.constructed).isFalse();
  }

  @Test
  void aNodeWithoutStreamReplicasDoesNotServeViewCalls() {
    ViewCallRequest request =
        ViewCallRequest.newBuilder()
            .setStream(StreamId.of("counter").toMsg())
            .setType(Counter.class.getName())
            .setMethod("get()")
            .setAsOf(-2)
            .build();
    assertThatThrownBy(() -> log().ops().viewCall(InProcessCluster.SEQUENCER, request).join())
        .cause()
        .isInstanceOf(NotServingException.class);
    assertThatThrownBy(() -> log().ops().viewCall(InProcessCluster.LOG_A, request).join())
        .cause()
        .isInstanceOf(NotServingException.class);
  }

  @Test
  void aRemoteViewTakesNoSerializerOfItsOwn() {
    VCorfuRuntime rt = runtime();
    assertThatThrownBy(
            () ->
                rt.objects()
                    .builder("s", Counter.class)
                    .remote()
                    .serializer(new io.vcorfu.runtime.serialization.DefaultSerializer())
                    .open())
        .hasMessageContaining("cannot take its own serializer");
    assertThat(Objects.requireNonNull(remote(rt, "s", Counter.class)).get()).isZero();
  }
}
