/**
 * Server-side handler invocation shared by every transport of this module. Not an API: public only
 * so that the transport packages of this module can reach it.
 */
package io.vcorfu.protocol.internal;
