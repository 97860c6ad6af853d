package io.vcorfu.runtime.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method that only reads the object. Calling it brings the view up to the stream's tail (a
 * single tail check when nothing changed) and runs the body on the view's state. An accessor must
 * not change the state.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Accessor {}
