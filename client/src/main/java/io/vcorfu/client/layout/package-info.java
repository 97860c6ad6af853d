/**
 * The client's current layout and epoch ({@link io.vcorfu.client.layout.LayoutCache}), read from
 * the first seed that answers and refreshed from every known server when a request is refused for
 * its epoch or a node fails; {@link io.vcorfu.client.layout.Failover} retries operations through
 * layout changes within the failover timeout.
 */
package io.vcorfu.client.layout;
