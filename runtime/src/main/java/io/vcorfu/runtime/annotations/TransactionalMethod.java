package io.vcorfu.runtime.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method whose body runs in a transaction. Called outside a transaction, the body runs in a
 * new one that is retried on abort per the runtime's retry policy; called inside one, it joins
 * (flattens into) the enclosing transaction and is not retried on its own.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface TransactionalMethod {
  /**
   * True when the body only reads. A read-only transaction never aborts; calling a mutator inside
   * an outermost read-only transaction fails with {@code TransactionStateException}.
   */
  boolean readOnly() default false;
}
