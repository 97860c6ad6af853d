/**
 * The vcorfu client: the shared log's stream layer as the paper's Table 1. {@link
 * io.vcorfu.client.StreamLog} appends to one or more streams under one global address (or on an
 * {@link io.vcorfu.client.IssueCondition}, the sequencer's conditional issuance), reads by global
 * or stream address, in bulk, asks for tails ({@code check}) and trims; {@link
 * io.vcorfu.client.ClusterStreamLog#connect} opens one on a cluster. Its types carry no protobuf.
 */
package io.vcorfu.client;
