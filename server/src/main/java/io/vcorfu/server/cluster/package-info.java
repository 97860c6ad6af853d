/**
 * Cluster mode: a node follows the layout agreed in ZooKeeper ({@link
 * io.vcorfu.server.cluster.ClusterMembership}), serves only while its layout lease holds ({@link
 * io.vcorfu.server.cluster.LayoutLease}), records the epochs it is sealed at ({@link
 * io.vcorfu.server.cluster.SealedEpoch}), and runs for manager ({@link
 * io.vcorfu.server.cluster.ClusterManager}), which detects failures and commits layout changes. The
 * design and its invariants are in {@code docs/cluster.md}.
 */
package io.vcorfu.server.cluster;
