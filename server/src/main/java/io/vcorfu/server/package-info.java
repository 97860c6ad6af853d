/**
 * A vcorfu node: opens the roles its layout assigns (sequencer, log replica, stream replica), binds
 * them to the request dispatcher, holds the data directory lock, and hosts remote views whose
 * accessors run next to the data.
 */
package io.vcorfu.server;
