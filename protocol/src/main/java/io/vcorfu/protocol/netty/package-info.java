/**
 * The TCP transport on Netty: length-prefixed protobuf framing, the client that pipelines requests
 * over one connection per server, and the server handler that hands requests to the dispatcher.
 */
package io.vcorfu.protocol.netty;
