/**
 * Annotations that make a plain Java class a vcorfu object: which methods change it ({@link
 * io.vcorfu.runtime.annotations.Mutator}), read it ({@link
 * io.vcorfu.runtime.annotations.Accessor}), do both ({@link
 * io.vcorfu.runtime.annotations.MutatorAccessor}), run as a transaction ({@link
 * io.vcorfu.runtime.annotations.TransactionalMethod}), and which parameter narrows conflicts to a
 * key ({@link io.vcorfu.runtime.annotations.ConflictParameter}).
 */
package io.vcorfu.runtime.annotations;
