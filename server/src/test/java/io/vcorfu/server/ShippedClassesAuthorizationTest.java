package io.vcorfu.server;

import static io.vcorfu.server.PluginClasses.TYPE;
import static io.vcorfu.server.PluginClasses.call;
import static org.assertj.core.api.Assertions.assertThat;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.PermissionDeniedException;
import io.vcorfu.protocol.netty.NettyTransport;
import io.vcorfu.protocol.netty.TestCertificates;
import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.server.access.AccessConfig;
import io.vcorfu.server.access.AccessList;
import io.vcorfu.server.access.AclFile;
import io.vcorfu.server.access.Grant;
import io.vcorfu.server.access.Permission;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a node that authorizes requests and accepts shipped classes, over TLS on real sockets: a
 * principal with {@code view} but not {@code deploy} on the stream cannot ship an object class (the
 * node loads nothing); one with {@code deploy} can; once a bundle is loaded, {@code view} is enough
 * to call it, since the call ships nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShippedClassesAuthorizationTest {
  @TempDir Path tmp;

  private final TestCertificates.Authority ca = TestCertificates.authority("node CA");
  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private static String subject(String name) {
    return "O=vcorfu test,CN=" + name;
  }

  private static Grant grant(String who, Permission... ps) {
    return new Grant(subject(who), "a/", EnumSet.of(ps[0], ps));
  }

  private VCorfuRuntime runtime(Node node, String who) throws Exception {
    VCorfuRuntime rt =
        VCorfuRuntime.using(
            ClusterStreamLog.connect(
                node.endpoint(),
                StreamLogOptions.defaults()
                    .withFailoverTimeout(Duration.ofSeconds(10))
                    .withTls(ca.identityIn(tmp, who))));
    open.add(0, rt);
    return rt;
  }

  @Test
  void onlyAPrincipalWithDeployShipsClasses() throws Throwable {
    Path acl = tmp.resolve("acl.json");
    AclFile.write(
        acl,
        AccessList.EMPTY
            .grant(grant("alice", Permission.VIEW, Permission.WRITE))
            .grant(grant("carol", Permission.VIEW, Permission.WRITE, Permission.DEPLOY)));
    NettyTransport transport = new NettyTransport(ca.identityIn(tmp, "node"));
    open.add(transport);
    Node node =
        Node.start(
            NodeConfig.durable(new Endpoint("127.0.0.1", 0), tmp.resolve("data"))
                .withAccess(new AccessConfig(acl, subject("node")))
                .withRemoteClasses(RemoteClasses.ACCEPTED),
            transport);
    open.add(0, node);
    node.ready().get(30, TimeUnit.SECONDS);
    URLClassLoader plugin = PluginClasses.compile(tmp.resolve("v1"), 1);
    open.add(plugin);
    Class<?> tally = plugin.loadClass(TYPE);

    Object alices = runtime(node, "alice").objects().builder("a/tally", tally).remote().open();
    call(alices, "add", 4L);
    PermissionDeniedException refused = null;
    try {
      call(alices, "total");
    } catch (PermissionDeniedException e) {
      refused = e;
    }
    assertThat(refused).as("alice may not ship classes").isNotNull();
    assertThat(refused.permission()).isEqualTo("deploy");
    assertThat(refused.getMessage()).contains("vcorfu acl grant").doesNotContain("\n");
    assertThat(node.views.shippedClasses().held()).isZero();

    ch.qos.logback.classic.Logger audit =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("vcorfu.audit");
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    audit.addAppender(lines);
    ch.qos.logback.classic.Level level = audit.getLevel();
    audit.setLevel(ch.qos.logback.classic.Level.INFO); // the build's tests log at WARN
    Object carols = runtime(node, "carol").objects().builder("a/tally", tally).remote().open();
    call(carols, "add", 5L);
    try {
      assertThat(call(carols, "total")).isEqualTo(9L);
    } finally {
      audit.detachAppender(lines);
      audit.setLevel(level);
    }
    // Who shipped code to the node is on record.
    assertThat(lines.list)
        .extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
        .contains(
            subject("carol")
                + " ships 2 classes of plugin.Tally with a remote-view call on"
                + " 'a/tally'");
    assertThat(node.views.shippedClasses().held()).isEqualTo(1);
    // Deployed: alice's calls name the loaded bundle by digest and ship nothing.
    assertThat(call(alices, "total")).isEqualTo(9L);
  }
}
