/**
 * Calls to the servers: {@link io.vcorfu.client.rpc.EpochRpc} stamps requests with the layout's
 * epoch and maps errors to exceptions, {@link io.vcorfu.client.rpc.ReplicaClient} has one typed
 * call per sequencer and replica operation, {@link io.vcorfu.client.rpc.Messages} converts between
 * the client's API types and the wire's messages, and {@link io.vcorfu.client.rpc.Calls} holds what
 * every call shares (the protocol version, how a failed call's error is reached).
 */
package io.vcorfu.client.rpc;
