package io.vcorfu.runtime.proxy;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * One annotated method of an object class.
 *
 * @param signature the method's identity on the log: its name and its parameters' type names, e.g.
 *     {@code login(java.lang.String,java.time.Instant)}; stable across JVMs and builds
 * @param conflictParameters indexes of the parameters marked {@code @ConflictParameter}
 * @param readOnly for a transactional method, whether it declared itself read-only
 */
public record MethodModel(
    Method method, String signature, MethodKind kind, int[] conflictParameters, boolean readOnly) {

  /** The stable signature of {@code m}. */
  public static String signatureOf(Method m) {
    return m.getName()
        + Arrays.stream(m.getParameterTypes())
            .map(Class::getTypeName)
            .collect(Collectors.joining(",", "(", ")"));
  }

  public boolean writes() {
    return kind == MethodKind.MUTATOR || kind == MethodKind.MUTATOR_ACCESSOR;
  }
}
