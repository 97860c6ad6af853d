package io.vcorfu.runtime.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method that changes the object and returns a result computed from its state. Calling it
 * appends the call, brings the view up to the call's own global address and returns the value the
 * body produced at exactly that position. Like a {@link Mutator}, it must be deterministic.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface MutatorAccessor {}
