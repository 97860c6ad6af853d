package io.vcorfu.runtime.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method that changes the object. Calling it serializes the call and appends it to the
 * object's stream; the body runs later, when a view plays the stream back (an upcall). The method
 * must return {@code void} and be deterministic: it may depend only on the object's state and its
 * arguments.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Mutator {}
