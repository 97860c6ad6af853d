package io.vcorfu.server;

import static io.vcorfu.server.PluginClasses.TYPE;
import static io.vcorfu.server.PluginClasses.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.vcorfu.client.ClassBundle;
import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ClassesNeededException;
import io.vcorfu.protocol.ClassesRefusedException;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.StreamId;
import io.vcorfu.protocol.inmemory.InJvmTransport;
import io.vcorfu.protocol.proto.ClassFileMsg;
import io.vcorfu.protocol.proto.ViewCallRequest;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.Version;
import io.vcorfu.runtime.classes.ClassBundles;
import io.vcorfu.runtime.serialization.DefaultSerializer;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Object classes shipped by clients with remote views ({@link ShippedClasses}): a node started to
 * accept them runs a class its class path does not have, without a restart, each version beside the
 * others; a node that does not accept them refuses, loading nothing; a bundle unused for the idle
 * time is dropped and its loader collected; a malformed or oversize bundle is refused and the node
 * serves on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShippedClassesTest {
  @TempDir Path tmp;

  private final InJvmTransport transport = new InJvmTransport();
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    transport.close();
  }

  private Node node(String name, RemoteClasses remoteClasses) throws Exception {
    return node(NodeConfig.inMemory(new Endpoint(name, 9000)).withRemoteClasses(remoteClasses));
  }

  private Node node(NodeConfig config) throws Exception {
    Node n = Node.start(config, transport);
    open.add(0, n);
    return n;
  }

  /** A node with version 1 of the plugin on its {@code --classpath}. */
  private Node withVersionOne(String name, RemoteClasses remoteClasses) throws Exception {
    return node(
        NodeConfig.inMemory(new Endpoint(name, 9000))
            .withViews(
                List.of(tmp.resolve("v1/classes")),
                NodeConfig.DEFAULT_CHECKPOINT_EVERY,
                Duration.ofHours(1))
            .withRemoteClasses(remoteClasses));
  }

  private VCorfuRuntime runtime(Node n) {
    VCorfuRuntime rt =
        VCorfuRuntime.using(
            ClusterStreamLog.connect(transport, n.endpoint(), StreamLogOptions.defaults()));
    open.add(0, rt);
    return rt;
  }

  private URLClassLoader version(String dir, int factor) throws Exception {
    URLClassLoader loader = PluginClasses.compile(tmp.resolve(dir), factor);
    open.add(loader);
    return loader;
  }

  private static Object remote(VCorfuRuntime rt, String stream, Class<?> type) {
    return rt.objects().builder(stream, type).remote().open();
  }

  @Test
  void aNodeThatAcceptsClassesRunsOneItsClassPathDoesNotHave() throws Throwable {
    assertThatThrownBy(() -> Class.forName(TYPE)).isInstanceOf(ClassNotFoundException.class);
    Node n = node("accepting", RemoteClasses.ACCEPTED);
    Class<?> tally = version("v1", 1).loadClass(TYPE);
    Object remote = remote(runtime(n), "tally", tally);
    call(remote, "add", 4L);
    call(remote, "add", 5L);
    assertThat(call(remote, "total")).isEqualTo(9L);
    call(remote, "add", 1L);
    assertThat(call(remote, "total")).isEqualTo(10L);
    // A mutator-accessor runs on the state as of its own address: a snapshot, on the bundle too.
    assertThat(call(remote, "addAndGet", 5L)).isEqualTo(15L);

    ShippedClasses shipped = n.views.shippedClasses();
    assertThat(shipped.held()).isEqualTo(1);
    assertThat(shipped.loaderOf(ClassBundles.of(tally).digestHex())).isNotNull();
    // The node's own loader still cannot load it: the class lives only in the bundle's loader.
    assertThatThrownBy(() -> Class.forName(TYPE, false, Node.class.getClassLoader()))
        .isInstanceOf(ClassNotFoundException.class);
    // The bundle holds the class and the record it uses, nothing of vcorfu or the JDK.
    assertThat(ClassBundles.of(tally).classes().keySet())
        .containsExactly("plugin.Tally", "plugin.Tally$Step");
  }

  @Test
  void aNodeWithoutTheFlagRefusesWithOneLineAndHostsNothing() throws Throwable {
    Node n = node("refusing", RemoteClasses.REFUSED);
    Object remote = remote(runtime(n), "tally", version("v1", 1).loadClass(TYPE));
    call(remote, "add", 4L); // a mutator only appends to the log
    assertThatThrownBy(() -> call(remote, "total"))
        .isInstanceOf(ClassesRefusedException.class)
        .hasMessageContaining("does not have class plugin.Tally")
        .hasMessageContaining("--accept-remote-classes")
        .hasMessageContaining("--classpath")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(n.views.shippedClasses()).isNull();
  }

  @Test
  void twoVersionsOfAClassRunSideBySideEachForItsOwnClients() throws Throwable {
    Node n = node("versions", RemoteClasses.ACCEPTED);
    Class<?> v1 = version("v1", 1).loadClass(TYPE);
    Class<?> v2 = version("v2", 10).loadClass(TYPE);
    assertThat(ClassBundles.of(v1).digestHex()).isNotEqualTo(ClassBundles.of(v2).digestHex());
    Object old = remote(runtime(n), "tally", v1);
    call(old, "add", 4L);
    call(old, "add", 5L);
    assertThat(call(old, "total")).isEqualTo(9L);
    // The new version deploys with no restart and reads the same stream its own way.
    Object changed = remote(runtime(n), "tally", v2);
    assertThat(call(changed, "total")).isEqualTo(90L);
    call(changed, "add", 1L);
    assertThat(call(changed, "total")).isEqualTo(100L);
    assertThat(call(old, "total")).isEqualTo(10L);
    assertThat(n.views.shippedClasses().held()).isEqualTo(2);
  }

  @Test
  void aNodeAtItsLimitDropsTheLeastRecentlyUsedBundle() throws Throwable {
    Node n = node("limited", RemoteClasses.ACCEPTED.withLimits(1, 1 << 20));
    Class<?> v1 = version("v1", 1).loadClass(TYPE);
    Class<?> v2 = version("v2", 10).loadClass(TYPE);
    Object old = remote(runtime(n), "tally", v1);
    Object changed = remote(runtime(n), "tally", v2);
    call(old, "add", 1L);
    assertThat(call(old, "total")).isEqualTo(1L);
    assertThat(call(changed, "total")).isEqualTo(10L);
    ShippedClasses shipped = n.views.shippedClasses();
    assertThat(shipped.held()).isEqualTo(1);
    assertThat(shipped.loaderOf(ClassBundles.of(v1).digestHex())).isNull();
    // The dropped version is shipped again when next called.
    assertThat(call(old, "total")).isEqualTo(1L);
    assertThat(shipped.loaderOf(ClassBundles.of(v1).digestHex())).isNotNull();
    assertThat(shipped.held()).isEqualTo(1);
  }

  @Test
  void aNodeAtItsLimitWithEveryBundleInUseRefusesANewOneUntilOneIsFree() throws Throwable {
    Node n = node("busy", RemoteClasses.ACCEPTED.withLimits(1, 1 << 20));
    Class<?> v1 = version("v1", 1).loadClass(TYPE);
    Class<?> v2 = version("v2", 10).loadClass(TYPE);
    Object old = remote(runtime(n), "tally", v1);
    Object changed = remote(runtime(n), "tally", v2);
    call(old, "add", 2L);
    assertThat(call(old, "total")).isEqualTo(2L);
    ShippedClasses shipped = n.views.shippedClasses();
    // A call running on version 1 holds it (as a long accessor would).
    try (ShippedClasses.Use running = shipped.use(TYPE, ClassBundles.of(v1).digest())) {
      assertThat(running).isNotNull();
      assertThatThrownBy(() -> call(changed, "total"))
          .isInstanceOf(ClassesRefusedException.class)
          .hasMessageContaining("holds its limit of 1 class bundles, all in use")
          .hasMessageContaining("--remote-classes-max")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
      assertThat(shipped.loaderOf(ClassBundles.of(v2).digestHex())).isNull();
      assertThat(shipped.held()).isEqualTo(1);
    }
    // Once the call is done, version 2 takes version 1's place.
    assertThat(call(changed, "total")).isEqualTo(20L);
    assertThat(shipped.loaderOf(ClassBundles.of(v2).digestHex())).isNotNull();
    assertThat(shipped.loaderOf(ClassBundles.of(v1).digestHex())).isNull();
  }

  @Test
  void anUnusedBundleIsDroppedAndItsLoaderCollected() throws Throwable {
    Node n = node("idle", RemoteClasses.ACCEPTED.withIdle(Duration.ofMillis(200)));
    VCorfuRuntime rt = runtime(n);
    Class<?> tally = version("v1", 1).loadClass(TYPE);
    Object remote = remote(rt, "tally", tally);
    call(remote, "add", 3L);
    assertThat(call(remote, "total")).isEqualTo(3L);
    ShippedClasses shipped = n.views.shippedClasses();
    ReferenceQueue<ClassLoader> collected = new ReferenceQueue<>();
    WeakReference<ClassLoader> loader =
        new WeakReference<>(shipped.loaderOf(ClassBundles.of(tally).digestHex()).get(), collected);

    await().atMost(Duration.ofSeconds(30)).until(() -> shipped.held() == 0);
    boolean gone = false;
    for (int i = 0; i < 100 && !gone; i++) {
      System.gc();
      gone = collected.remove(100) != null;
    }
    assertThat(gone).as("the dropped bundle's loader was collected").isTrue();
    assertThat(loader.get()).isNull();

    // The next call ships the classes again.
    assertThat(call(remote, "total")).isEqualTo(3L);
    assertThat(shipped.held()).isEqualTo(1);
  }

  @Test
  void theClassPathsVersionServesCallsNamingItOrNoVersion() throws Throwable {
    Class<?> v1 = version("v1", 1).loadClass(TYPE);
    Class<?> v2 = version("v2", 10).loadClass(TYPE);

    // Not taking classes: the node runs its class path's version whatever the client has, as
    // before bundles, and serves a call naming no version at all (a client from before them).
    Node old = withVersionOne("old", RemoteClasses.REFUSED);
    Object newer = remote(runtime(old), "tally", v2);
    call(newer, "add", 4L);
    assertThat(call(newer, "total")).isEqualTo(4L);
    ViewCallRequest unversioned =
        request(ClassBundles.of(v1), Map.of()).toBuilder().clearBundleDigest().build();
    byte[] result = old.views.call(unversioned).get(30, TimeUnit.SECONDS).getResult().toByteArray();
    assertThat(new DefaultSerializer().deserialize(result)).isEqualTo(4L);
    assertThat(old.views.shippedClasses()).isNull();

    // Taking classes: a client with the class path's version runs it, one with another version
    // ships its own.
    Node both = withVersionOne("both", RemoteClasses.ACCEPTED);
    Object same = remote(runtime(both), "tally", v1);
    call(same, "add", 2L);
    assertThat(call(same, "total")).isEqualTo(2L);
    assertThat(both.views.shippedClasses().held()).isZero();
    assertThat(call(remote(runtime(both), "tally", v2), "total")).isEqualTo(20L);
    assertThat(both.views.shippedClasses().held()).isEqualTo(1);
  }

  private static ViewCallRequest request(ClassBundle bundle, Map<String, byte[]> files) {
    ViewCallRequest.Builder b =
        ViewCallRequest.newBuilder()
            .setStream(StreamId.of("tally").toMsg())
            .setType(TYPE)
            .setMethod("total()")
            .setAsOf(Version.LIVE.toWire())
            .setBundleDigest(ByteString.copyFrom(bundle.digest()));
    files.forEach(
        (name, file) ->
            b.addBundle(
                ClassFileMsg.newBuilder().setName(name).setBytes(ByteString.copyFrom(file))));
    return b.build();
  }

  private static Throwable refusal(Node n, ViewCallRequest r) throws Exception {
    try {
      n.views.call(r).get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the call was served");
  }

  @Test
  void aMalformedOrOversizeBundleIsRefusedAndTheNodeServesOn() throws Throwable {
    Node n = node("checks", RemoteClasses.ACCEPTED.withLimits(4, 4096));
    Class<?> tally = version("v1", 1).loadClass(TYPE);
    ClassBundle bundle = ClassBundles.of(tally);
    Map<String, byte[]> good = bundle.classes();

    assertThat(refusal(n, request(bundle, Map.of()))).isInstanceOf(ClassesNeededException.class);
    Map<String, byte[]> notClassFiles = new java.util.TreeMap<>(good);
    notClassFiles.put(TYPE, new byte[] {1, 2, 3});
    assertThat(refusal(n, request(bundle, notClassFiles)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("not a valid bundle")
        .hasMessageContaining("not a class file");
    Map<String, byte[]> swapped = new java.util.TreeMap<>(good);
    swapped.put(TYPE, good.get("plugin.Tally$Step"));
    assertThat(refusal(n, request(bundle, swapped)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("is class plugin.Tally$Step");
    Map<String, byte[]> extra = new java.util.TreeMap<>(good);
    extra.put("plugin.Tally$Step", good.get("plugin.Tally$Step").clone());
    extra.put("io.vcorfu.Evil", good.get(TYPE));
    assertThat(refusal(n, request(bundle, extra)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("a class of vcorfu or the JDK");
    Map<String, byte[]> otherCode = new java.util.TreeMap<>(good);
    otherCode.remove("plugin.Tally$Step");
    assertThat(refusal(n, request(bundle, otherCode)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("do not have the digest");
    // A header and constant pool that read well, and nothing after them: the JVM cannot define it.
    Map<String, byte[]> cut = new java.util.TreeMap<>(good);
    cut.put(TYPE, java.util.Arrays.copyOf(good.get(TYPE), good.get(TYPE).length - 40));
    assertThat(refusal(n, request(ClassBundle.of(TYPE, cut), cut)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("class plugin.Tally cannot be defined");
    Map<String, byte[]> oversize = new java.util.TreeMap<>(good);
    oversize.put("plugin.Padding", new byte[8192]);
    assertThat(refusal(n, request(bundle, oversize)))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("over this node's limit of 4096 bytes per bundle");
    assertThat(n.views.shippedClasses().held()).isZero();

    // The node serves on: the real bundle loads and runs.
    Object remote = remote(runtime(n), "tally", tally);
    call(remote, "add", 2L);
    assertThat(call(remote, "total")).isEqualTo(2L);
    assertThat(n.views.shippedClasses().held()).isEqualTo(1);
    // A loaded digest runs only classes of its bundle.
    ViewCallRequest elsewhere =
        request(bundle, Map.of()).toBuilder().setType("plugin.Elsewhere").build();
    assertThat(refusal(n, elsewhere))
        .isInstanceOf(BadRequestException.class)
        .hasMessageContaining("has no plugin.Elsewhere");
    assertThat(call(remote, "total")).isEqualTo(2L);
  }
}
