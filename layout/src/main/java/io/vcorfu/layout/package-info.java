/**
 * The layout and its epochs: an epoch-stamped description of which server sequences and which
 * chains of log and stream replicas serve which addresses and streams, its JSON form and
 * validation, versioned layout stores, and the epoch fence that seals a replica against an older
 * layout.
 */
package io.vcorfu.layout;
