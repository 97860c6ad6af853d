package io.vcorfu.layout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * The cluster's identity in ZooKeeper (the {@code digest} scheme: a user name and a password). A
 * client given one authenticates its session with it, and every znode it creates gets an ACL that
 * grants everything to that identity and nothing to anyone else, so another ZooKeeper client can
 * neither read nor change the layout. Read from a file of one line {@code user:password} (see
 * {@link #fromFile}); the password is never logged or shown.
 *
 * @param user the identity's name: not empty, no {@code :}
 * @param password not empty
 */
public record ZkAuth(String user, String password) {
  public ZkAuth {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    if (user.isEmpty() || user.contains(":") || password.isEmpty()) {
      throw new IllegalArgumentException(
          "a ZooKeeper identity is a user name without ':' and a password, neither empty");
    }
  }

  /**
   * The identity in {@code file}: its first line, {@code user:password} (surrounding white space
   * ignored).
   *
   * @throws IllegalArgumentException naming the file and what to write in it when it is missing,
   *     unreadable or not of that form
   */
  public static ZkAuth fromFile(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(file + " does not exist: write user:password in it");
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    String line = text.lines().findFirst().orElse("").strip();
    int colon = line.indexOf(':');
    if (colon <= 0 || colon == line.length() - 1) {
      throw new IllegalArgumentException(
          file + " must hold the cluster's ZooKeeper identity as one line user:password");
    }
    return new ZkAuth(line.substring(0, colon), line.substring(colon + 1));
  }

  /** What a session sends to authenticate ({@code user:password}, UTF-8). */
  byte[] credentials() {
    return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The ACL of every znode created with this identity: all permissions to it, none to others (a
   * list that may be asked whether it holds null, as ZooKeeper's client does).
   */
  List<ACL> acl() {
    try {
      String digest = DigestAuthenticationProvider.generateDigest(user + ":" + password);
      return new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", digest))));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM offers no SHA-1 for ZooKeeper digests", e);
    }
  }

  /** The user only: the password stays out of logs and messages. */
  @Override
  public String toString() {
    return "ZkAuth[" + user + "]";
  }
}
