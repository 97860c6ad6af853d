/**
 * The layout and its epochs: an epoch-stamped description of which server sequences and which
 * chains of log and stream replicas serve which addresses and streams, its JSON form and
 * validation, the layout changes of cluster mode ({@link io.vcorfu.layout.LayoutChanges}),
 * versioned layout stores (a local file, or ZooKeeper for a cluster: {@link
 * io.vcorfu.layout.ZkLayoutStore}, whose ZooKeeper and Curator dependencies are optional), and the
 * epoch fence that seals a replica against an older layout.
 */
package io.vcorfu.layout;
