/**
 * The client's current layout and epoch ({@link io.vcorfu.client.layout.LayoutCache}), refreshed
 * from the servers when a request is rejected for a wrong epoch.
 */
package io.vcorfu.client.layout;
