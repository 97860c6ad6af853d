/**
 * The SMR engine (paper §4): {@link io.vcorfu.runtime.smr.SmrEngine} plays a stream's updates onto
 * a view's state as upcalls ({@link io.vcorfu.runtime.smr.UpcallRunner}); {@link
 * io.vcorfu.runtime.smr.OldVersions} serves the state as of older addresses (captured versions or
 * replay of the {@link io.vcorfu.runtime.smr.UpdateHistory}); the log record format is {@link
 * io.vcorfu.runtime.smr.SmrRecord}, written by {@link io.vcorfu.runtime.smr.UpdateCodec}. Used by
 * the runtime's own packages only; not an API for applications or other modules.
 */
package io.vcorfu.runtime.smr;
