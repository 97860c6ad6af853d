/**
 * View handles: where a proxy's annotated calls go. {@link io.vcorfu.runtime.view.LocalViewHandle}
 * runs them on a local view's SMR engine (live or snapshot), {@link
 * io.vcorfu.runtime.view.RemoteViewHandle} sends accessors to the stream's remote-view host; {@link
 * io.vcorfu.runtime.view.ObjectDirectory} opens views. Used by the runtime's own packages only.
 */
package io.vcorfu.runtime.view;
