/**
 * The storage roles of a node: the log replica (entries by global address) and the stream replica
 * (entries by stream address), both kept by one replica store whose durable mode writes checksummed
 * segment files, with the storage options, fsync policy and recovery statistics that configure and
 * describe it.
 */
package io.vcorfu.logunit;
