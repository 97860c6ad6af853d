package io.vcorfu.runtime.proxy;

/** What an annotated method does to its object. */
public enum MethodKind {
  MUTATOR,
  ACCESSOR,
  MUTATOR_ACCESSOR,
  TRANSACTIONAL
}
