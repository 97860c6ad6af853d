/**
 * Internals of the collections: the persistent (immutable, structure-sharing) data structures
 * their versions are made of. Not for application use.
 */
package io.vcorfu.collections.internal;
