/**
 * Internals of vcorfu's collections: the persistent (immutable, structure-sharing) data structures
 * their versions are made of (hash trie, AVL tree, indexed sequence), the node and root objects and
 * algorithms of {@code CSMRBTree}, and the range views the sorted maps share. Not an application
 * API.
 */
package io.vcorfu.collections.internal;
