package io.vcorfu.server;

import io.vcorfu.logunit.LogReplica;
import io.vcorfu.logunit.ReplicaStore;
import io.vcorfu.logunit.StreamReplica;

/**
 * The roles one node hosts, opened before its dispatcher is bound to them; a role the node does not
 * host is null.
 *
 * @param sequencer the sequencer, with its read leases and its bootstrap
 * @param log the log replica, over {@code store}
 * @param stream the stream replica, over {@code store}
 * @param store the storage shared by the node's replicas (null when it hosts neither)
 * @param views the remote-view host, on a node holding stream replicas
 * @param drivers the writer of the appends the sequencer takes whole when other nodes hold copies
 *     (null: this node takes them only in a one-node layout)
 */
record Roles(
    SequencerRole sequencer,
    LogReplica log,
    StreamReplica stream,
    ReplicaStore store,
    RemoteViewHost views,
    AppendDrivers drivers) {}
