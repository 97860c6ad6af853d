/**
 * The wire protocol shared by clients and servers: transports, RPC clients and handlers, the
 * request dispatcher, endpoints, stream identifiers, trim bounds, and the exception for each error
 * a server can answer with (sealed, wrong epoch, overwritten, trimmed and so on), mapped to and
 * from the protobuf messages by {@code Errors}.
 */
package io.vcorfu.protocol;
