package io.vcorfu.server.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vcorfu.layout.LayoutNotFoundException;
import io.vcorfu.layout.ZkAuth;
import io.vcorfu.layout.ZkLayoutStore;
import io.vcorfu.server.access.AccessList;
import io.vcorfu.server.access.AclFile;
import io.vcorfu.server.access.AclZnode;
import io.vcorfu.server.access.Grant;
import io.vcorfu.server.access.Permission;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vcorfu acl grant|revoke|list}: the grants a node run with {@code --acl FILE}, or a cluster
 * whose nodes run with {@code --authorization}, checks every request against.
 */
@Command(
    name = "acl",
    mixinStandardHelpOptions = true,
    description =
        "Grant, revoke and list who may do what: permissions read, write, trim, view (remote"
            + " views), deploy (ship object classes with remote views) on the streams whose names"
            + " start with a prefix, and admin and node on the whole cluster, each to a principal"
            + " (the subject of a certificate, e.g. CN=alice, or * for every certified caller)."
            + " Changes reach the nodes within a second.",
    subcommands = {
      AclCommands.GrantCommand.class,
      AclCommands.Revoke.class,
      AclCommands.ListGrants.class
    })
final class AclCommands {
  private AclCommands() {}

  /** Where the grants live: a single node's file, or a cluster's znode. */
  static final class Place {
    @Option(
        names = "--file",
        paramLabel = "FILE",
        description = "The grants file of a single node (vcorfu server --acl FILE).")
    Path file;

    @Option(names = "--zookeeper", description = "A cluster's ZooKeeper connect string.")
    String zookeeper;

    @Option(names = "--cluster", description = "The cluster's name (with --zookeeper).")
    String cluster;

    @Option(
        names = "--zookeeper-auth",
        paramLabel = "FILE",
        description = "The cluster's ZooKeeper identity (a file of one line user:password).")
    Path zookeeperAuth;

    @Option(
        names = "--timeout-ms",
        defaultValue = "10000",
        description = "How long to wait for ZooKeeper (default ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Mixin ZooKeeperTlsFlags zookeeperTls = new ZooKeeperTlsFlags();

    /** Checks the options fit together; null when they do, else what to do. */
    String problem() {
      if ((file == null) == (zookeeper == null)) {
        return "give --file FILE (a single node's grants) or --zookeeper ZK --cluster NAME (a"
            + " cluster's), one of the two";
      }
      if (zookeeper != null && cluster == null) {
        return "--zookeeper needs --cluster NAME";
      }
      if (file == null && cluster != null && zookeeper == null) {
        return "--cluster goes with --zookeeper";
      }
      if (file != null && (cluster != null || zookeeperAuth != null || zookeeperTls.given())) {
        return "--cluster, --zookeeper-auth and --zookeeper-tls-* go with --zookeeper, not --file";
      }
      if (timeoutMs < 1) {
        return "--timeout-ms must be at least 1";
      }
      if (file != null && !Files.isDirectory(file.toAbsolutePath().getParent())) {
        return "the directory of " + file + " does not exist";
      }
      return null;
    }

    /** The grants now (file: none when it does not exist). */
    AccessList read() throws Exception {
      if (file != null) {
        return AclFile.read(file);
      }
      return inZooKeeper(zk -> AclZnode.read(zk, cluster));
    }

    /** Applies {@code change} to the grants and returns what was written. */
    AccessList change(UnaryOperator<AccessList> change) throws Exception {
      if (file != null) {
        AccessList next = change.apply(AclFile.read(file));
        AclFile.write(file, next);
        return next;
      }
      return inZooKeeper(zk -> AclZnode.update(zk, cluster, change));
    }

    private interface ZkWork {
      AccessList run(org.apache.curator.framework.CuratorFramework zk) throws Exception;
    }

    private AccessList inZooKeeper(ZkWork work) throws Exception {
      ZkAuth auth = zookeeperAuth == null ? null : ZkAuth.fromFile(zookeeperAuth);
      try (ZkLayoutStore store =
          ZkLayoutStore.connect(
              zookeeper, cluster, Duration.ofMillis(timeoutMs), auth, zookeeperTls.tls())) {
        try {
          store.get().get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof LayoutNotFoundException) {
            throw new NotFoundException(
                "there is no cluster "
                    + cluster
                    + " in ZooKeeper at "
                    + zookeeper
                    + "; create it with `vcorfu cluster init`");
          }
          throw e;
        }
        return work.run(store.client());
      }
    }
  }

  /** {@code --principal}, {@code --prefix}, {@code --permissions}. */
  static final class What {
    @Option(
        names = "--principal",
        required = true,
        description =
            "Whom: the subject of a certificate as the node logs it (e.g. CN=alice), or * for"
                + " every caller with a certificate of the node's CA.")
    String principal;

    @Option(
        names = "--prefix",
        defaultValue = "",
        description =
            "On the streams whose names start with this (default: every stream, also those"
                + " named by id only).")
    String prefix;

    @Option(
        names = "--permissions",
        required = true,
        split = ",",
        description = "read, write, trim, view, deploy, admin, node (comma-separated).")
    java.util.List<String> permissions;

    Set<Permission> parsed() {
      Set<Permission> out = EnumSet.noneOf(Permission.class);
      for (String p : permissions) {
        out.add(Permission.parse(p));
      }
      return out;
    }

    /**
     * The permissions, once {@code place}'s options are checked.
     *
     * @throws IllegalArgumentException saying what is wrong with either
     */
    Set<Permission> checked(Place place) {
      String problem = place.problem();
      if (problem != null) {
        throw new IllegalArgumentException(problem);
      }
      return parsed();
    }

    String where() {
      return prefix.isEmpty() ? "every stream" : "streams starting with '" + prefix + "'";
    }
  }

  /** {@code vcorfu acl grant}. */
  @Command(
      name = "grant",
      mixinStandardHelpOptions = true,
      description = "Give a principal permissions on the streams of a prefix.")
  static final class GrantCommand implements Callable<Integer> {
    @Mixin Place place = new Place();
    @Mixin What what = new What();
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter err = spec.commandLine().getErr();
      Grant g;
      try {
        g = new Grant(what.principal, what.prefix, what.checked(place));
      } catch (IllegalArgumentException e) {
        err.println("vcorfu acl grant: " + e.getMessage());
        return VcorfuCli.USAGE;
      }
      place.change(now -> now.grant(g));
      PrintWriter out = spec.commandLine().getOut();
      out.println("granted " + g.labels() + " on " + what.where() + " to " + g.principal());
      out.flush();
      return VcorfuCli.OK;
    }
  }

  /** {@code vcorfu acl revoke}. */
  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description =
          "Take permissions from a principal on exactly one prefix (grants on other prefixes"
              + " stay).")
  static final class Revoke implements Callable<Integer> {
    @Mixin Place place = new Place();
    @Mixin What what = new What();
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter err = spec.commandLine().getErr();
      Set<Permission> taken;
      try {
        taken = what.checked(place);
      } catch (IllegalArgumentException e) {
        err.println("vcorfu acl revoke: " + e.getMessage());
        return VcorfuCli.USAGE;
      }
      boolean[] held = new boolean[1];
      place.change(
          now -> {
            AccessList next = now.revoke(what.principal, what.prefix, taken);
            held[0] = !next.equals(now);
            return next;
          });
      if (!held[0]) {
        err.println(
            "vcorfu acl revoke: "
                + what.principal
                + " holds none of "
                + String.join(",", what.permissions)
                + " on "
                + what.where()
                + "; nothing was changed");
        return VcorfuCli.NOT_FOUND;
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(
          "revoked "
              + String.join(",", what.permissions)
              + " on "
              + what.where()
              + " from "
              + what.principal);
      out.flush();
      return VcorfuCli.OK;
    }
  }

  /** {@code vcorfu acl list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the grants, one per principal and prefix.")
  static final class ListGrants implements Callable<Integer> {
    @Mixin Place place = new Place();
    @Mixin Output output = new Output();
    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      String problem = place.problem();
      if (problem != null) {
        spec.commandLine().getErr().println("vcorfu acl list: " + problem);
        return VcorfuCli.USAGE;
      }
      if (place.file != null && !Files.exists(place.file)) {
        spec.commandLine()
            .getErr()
            .println(
                "vcorfu acl list: there is no grants file "
                    + place.file
                    + "; create it with `vcorfu acl grant --file "
                    + place.file
                    + " ...`");
        return VcorfuCli.NOT_FOUND;
      }
      AccessList grants = place.read();
      PrintWriter out = spec.commandLine().getOut();
      if (output.json()) {
        for (Grant g : grants.grants()) {
          ObjectNode o = Output.mapper().createObjectNode();
          o.put("principal", g.principal());
          o.put("prefix", g.prefix());
          var ps = o.putArray("permissions");
          for (String p : g.labels().split(",")) {
            ps.add(p);
          }
          out.println(Output.mapper().writeValueAsString(o));
        }
      } else {
        int width = "PRINCIPAL".length();
        for (Grant g : grants.grants()) {
          width = Math.max(width, g.principal().length());
        }
        out.printf("%-" + width + "s  %-20s  %s%n", "PRINCIPAL", "PREFIX", "PERMISSIONS");
        for (Grant g : grants.grants()) {
          out.printf(
              "%-" + width + "s  %-20s  %s%n",
              g.principal(),
              g.prefix().isEmpty() ? "(every stream)" : g.prefix(),
              g.labels());
        }
      }
      out.flush();
      return VcorfuCli.OK;
    }
  }
}
