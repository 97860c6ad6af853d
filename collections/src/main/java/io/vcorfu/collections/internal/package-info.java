/**
 * Internals of vcorfu's collections: the persistent AVL tree behind {@code SMRRangeMap}, the
 * node and root objects and algorithms of {@code CSMRBTree}, and the range views both share. Not
 * an application API.
 */
package io.vcorfu.collections.internal;
