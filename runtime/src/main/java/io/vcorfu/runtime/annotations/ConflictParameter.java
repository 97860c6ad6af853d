package io.vcorfu.runtime.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a parameter of a {@link Mutator}, {@link Accessor} or {@link MutatorAccessor} as the key
 * that transactions conflict on: two transactions touching different keys of the same object do not
 * conflict. Without it, conflicts are detected per object. The key sent to the sequencer is the
 * serialized parameter value (several marked parameters: the serialized list of their values), so
 * it must serialize to the same bytes in every JVM; the default serializer guarantees that.
 *
 * <p>A mutator with a conflict key called outside a transaction is a keyed blind write: it aborts
 * the transactions that read its key or the whole object, not those that read other keys.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface ConflictParameter {}
