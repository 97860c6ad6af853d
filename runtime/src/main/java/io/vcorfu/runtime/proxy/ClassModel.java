package io.vcorfu.runtime.proxy;

import io.vcorfu.runtime.ObjectOpenException;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.ConflictParameter;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;
import io.vcorfu.runtime.annotations.TransactionalMethod;
import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the runtime knows about an object class: its annotated methods by stable signature, and how
 * to make a fresh (un-proxied) instance of it. Built once per class; immutable and thread-safe.
 */
public final class ClassModel {
  private final Class<?> type;
  private final Constructor<?> constructor;
  private final Map<String, MethodModel> bySignature;
  private final Map<Method, MethodModel> byMethod;

  private ClassModel(Class<?> type, Constructor<?> constructor, List<MethodModel> methods) {
    this.type = type;
    this.constructor = constructor;
    Map<String, MethodModel> sig = new HashMap<>();
    Map<Method, MethodModel> byM = new HashMap<>();
    for (MethodModel m : methods) {
      sig.put(m.signature(), m);
      byM.put(m.method(), m);
    }
    this.bySignature = Collections.unmodifiableMap(sig);
    this.byMethod = Collections.unmodifiableMap(byM);
  }

  /**
   * Inspects {@code type}; fails with {@link ObjectOpenException} naming the problem if it cannot
   * be proxied.
   */
  public static ClassModel of(Class<?> type) {
    String name = type.getName();
    if (type.isInterface()
        || type.isPrimitive()
        || type.isArray()
        || type.isEnum()
        || type.isRecord()) {
      throw new ObjectOpenException(
          name + " cannot be opened as an object: only ordinary classes can be proxied");
    }
    if (Modifier.isFinal(type.getModifiers())) {
      throw new ObjectOpenException(
          "class " + name + " is final, so it cannot be proxied; remove the final modifier");
    }
    if (Modifier.isAbstract(type.getModifiers())) {
      throw new ObjectOpenException("class " + name + " is abstract; open a concrete class");
    }
    if (type.isMemberClass() && !Modifier.isStatic(type.getModifiers())) {
      throw new ObjectOpenException(
          "class " + name + " is an inner (non-static) class; make it static");
    }
    Constructor<?> ctor;
    try {
      ctor = type.getDeclaredConstructor();
    } catch (NoSuchMethodException e) {
      throw new ObjectOpenException(
          "class "
              + name
              + " has no no-argument constructor, so the runtime cannot create its initial state;"
              + " add one");
    }
    if (Modifier.isPrivate(ctor.getModifiers())) {
      throw new ObjectOpenException(
          "the no-argument constructor of class "
              + name
              + " is private, so it cannot be proxied; make it at least package-private");
    }
    ctor.setAccessible(true);
    return new ClassModel(type, ctor, annotatedMethods(type));
  }

  private static List<MethodModel> annotatedMethods(Class<?> type) {
    List<MethodModel> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.isSynthetic() || m.isBridge()) {
          continue;
        }
        MethodKind kind = kindOf(m);
        String signature = MethodModel.signatureOf(m);
        // The most derived declaration decides: an unannotated override is an ordinary method.
        if (!seen.add(signature) || kind == null) {
          continue;
        }
        String where = "method " + signature + " of " + c.getName();
        int mod = m.getModifiers();
        if (Modifier.isFinal(mod)) {
          throw new ObjectOpenException(
              where
                  + " is annotated but final, so it cannot be intercepted; remove the final"
                  + " modifier");
        }
        if (Modifier.isStatic(mod) || Modifier.isPrivate(mod)) {
          throw new ObjectOpenException(
              where
                  + " is annotated but "
                  + (Modifier.isStatic(mod) ? "static" : "private")
                  + ", so it cannot be intercepted");
        }
        if (kind == MethodKind.MUTATOR && m.getReturnType() != void.class) {
          throw new ObjectOpenException(
              where
                  + " is a @Mutator but returns a value; mark it @MutatorAccessor to get the value"
                  + " the call produced");
        }
        m.setAccessible(true);
        out.add(
            new MethodModel(m, signature, kind, conflictParameters(m, kind, where), readOnly(m)));
      }
    }
    return out;
  }

  private static MethodKind kindOf(Method m) {
    List<MethodKind> kinds = new ArrayList<>();
    if (m.isAnnotationPresent(Mutator.class)) {
      kinds.add(MethodKind.MUTATOR);
    }
    if (m.isAnnotationPresent(Accessor.class)) {
      kinds.add(MethodKind.ACCESSOR);
    }
    if (m.isAnnotationPresent(MutatorAccessor.class)) {
      kinds.add(MethodKind.MUTATOR_ACCESSOR);
    }
    if (m.isAnnotationPresent(TransactionalMethod.class)) {
      kinds.add(MethodKind.TRANSACTIONAL);
    }
    if (kinds.size() > 1) {
      throw new ObjectOpenException(
          "method "
              + MethodModel.signatureOf(m)
              + " of "
              + m.getDeclaringClass().getName()
              + " carries several of @Mutator, @Accessor, @MutatorAccessor, @TransactionalMethod;"
              + " keep one");
    }
    return kinds.isEmpty() ? null : kinds.get(0);
  }

  private static int[] conflictParameters(Method m, MethodKind kind, String where) {
    Annotation[][] annotations = m.getParameterAnnotations();
    List<Integer> idx = new ArrayList<>();
    for (int i = 0; i < annotations.length; i++) {
      for (Annotation a : annotations[i]) {
        if (a instanceof ConflictParameter) {
          idx.add(i);
        }
      }
    }
    if (!idx.isEmpty() && kind == MethodKind.TRANSACTIONAL) {
      throw new ObjectOpenException(
          where
              + " is a @TransactionalMethod; @ConflictParameter applies only to mutators and"
              + " accessors");
    }
    return idx.stream().mapToInt(Integer::intValue).toArray();
  }

  private static boolean readOnly(Method m) {
    TransactionalMethod t = m.getAnnotation(TransactionalMethod.class);
    return t != null && t.readOnly();
  }

  public Class<?> type() {
    return type;
  }

  /** The annotated method with this stable signature, or null. */
  public MethodModel method(String signature) {
    return bySignature.get(signature);
  }

  Map<Method, MethodModel> methodsByReflection() {
    return byMethod;
  }

  public Iterable<MethodModel> methods() {
    return bySignature.values();
  }

  /** A fresh, un-proxied instance in the class's initial state. */
  public Object newState() {
    try {
      return constructor.newInstance();
    } catch (InvocationTargetException e) {
      throw new IllegalStateException(
          "the constructor of " + type.getName() + " failed", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create an instance of " + type.getName(), e);
    }
  }
}
