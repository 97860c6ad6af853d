package io.vcorfu.layout;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Turns what ZooKeeper or Curator threw or answered into the exceptions a {@link ZkLayoutStore}'s
 * futures fail with, naming the ensemble: {@link LayoutStoreUnavailableException} when ZooKeeper
 * could not be reached (connection loss, session expiry, timeout: the outcome of a write is then
 * unknown), {@link LayoutException} when it refused.
 */
final class ZkFailures {
  private final String connectString;
  private final boolean authenticated;

  /**
   * @param authenticated whether the client has a ZooKeeper identity: when it has none, a lost
   *     connection may be an ensemble refusing unauthenticated clients, and the message says so
   */
  ZkFailures(String connectString, boolean authenticated) {
    this.connectString = connectString;
    this.authenticated = authenticated;
  }

  /**
   * {@link #failure}, for a compare-and-set: when ZooKeeper could not be reached its answer was
   * lost, and the message says the layout may or may not have been stored.
   */
  RuntimeException casFailure(Exception e, String what) {
    RuntimeException failure = failure(e, what);
    if (failure instanceof LayoutStoreUnavailableException) {
      return new LayoutStoreUnavailableException(
          failure.getMessage()
              + " The layout may or may not have been stored: re-read it before deciding again.",
          e);
    }
    return failure;
  }

  /**
   * What a call that tried to {@code what} fails with, after {@code e}: {@link
   * LayoutStoreUnavailableException} when ZooKeeper could not be reached, {@link LayoutException}
   * when it refused or anything else went wrong; a {@link RuntimeException} as it is.
   */
  RuntimeException failure(Exception e, String what) {
    if (e instanceof KeeperException ke) {
      if (ke.code() == KeeperException.Code.NOAUTH
          || ke.code() == KeeperException.Code.AUTHFAILED
          || ke.code() == KeeperException.Code.SESSIONCLOSEDREQUIRESASLAUTH) {
        return new LayoutException(
            "ZooKeeper at "
                + connectString
                + " refused to "
                + what
                + ": the cluster's znodes are protected, and this client's ZooKeeper identity is"
                + " missing or wrong (give --zookeeper-auth FILE, the file of user:password the"
                + " cluster was created with)",
            e);
      }
      if (isUnreachable(ke.code())) {
        return new LayoutStoreUnavailableException(
            "ZooKeeper at "
                + connectString
                + " could not be reached to "
                + what
                + " ("
                + ke.code()
                + ")."
                + (authenticated
                    ? ""
                    : " If the ensemble serves only authenticated clients, give --zookeeper-auth"
                        + " FILE (the cluster's user:password)."),
            e);
      }
      return new LayoutException(
          "ZooKeeper at " + connectString + " refused to " + what + ": " + ke.getMessage(), e);
    }
    if (e instanceof RuntimeException re) {
      return re;
    }
    return new LayoutException(
        "Could not " + what + " in ZooKeeper at " + connectString + ": " + e, e);
  }

  private static boolean isUnreachable(Code code) {
    return switch (code) {
      case CONNECTIONLOSS,
          OPERATIONTIMEOUT,
          SESSIONEXPIRED,
          SESSIONMOVED,
          REQUESTTIMEOUT,
          THROTTLEDOP ->
          true;
      default -> false;
    };
  }
}
