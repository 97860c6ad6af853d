package io.vcorfu.runtime.internal;

/** What an annotated method does to its object. */
public enum MethodKind {
  MUTATOR,
  ACCESSOR,
  MUTATOR_ACCESSOR,
  TRANSACTIONAL
}
