/**
 * The storage engine beneath the replicas: the record index keyed by namespace and address, the
 * segment writer and its record codec, index files and segment recovery at start-up. Not an API:
 * used only by the replica store of this module.
 */
package io.vcorfu.logunit.internal;
