/**
 * Checkpoints of objects: {@link io.vcorfu.runtime.checkpoint.Checkpoints} writes an object's
 * fields (a {@link io.vcorfu.runtime.checkpoint.CheckpointImage}) as of a version to its checkpoint
 * stream and finds the latest one a view opens from.
 */
package io.vcorfu.runtime.checkpoint;
