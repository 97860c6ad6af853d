/**
 * Authorization: who may do what to which streams. A node run with {@code --acl FILE} (single node)
 * or {@code --authorization} (cluster, grants in ZooKeeper) checks every request against the grants
 * of its caller's principal, the subject of the certificate it presented over TLS ({@link
 * io.vcorfu.server.access.Authorization}, {@link io.vcorfu.server.access.RequestAccess}); grants
 * name streams by name prefix, and a stream's name is believed only when it hashes to the stream's
 * id ({@link io.vcorfu.server.access.StreamNames}). The design is in {@code docs/security.md}.
 */
package io.vcorfu.server.access;
