package io.vcorfu.runtime.proxy;

import static net.bytebuddy.matcher.ElementMatchers.anyOf;

import io.vcorfu.runtime.ObjectOpenException;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.loading.ClassInjector;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.implementation.MethodDelegation;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Generates one Byte Buddy subclass per object class (cached for the JVM's lifetime), overriding
 * only the annotated methods; every other method runs unchanged on the proxy instance. Thread-safe.
 */
public final class ProxyFactory {
  private static final String HANDLE_FIELD = "vcorfuHandle$";

  /** A class's model and its proxy class. */
  public record Proxied(ClassModel model, Constructor<?> constructor) {
    /** A new proxy instance bound to {@code handle}; its state is the class's initial state. */
    public Object newInstance(ObjectHandle handle) {
      try {
        Object p = constructor.newInstance();
        ((SmrProxy) p).setVcorfuHandle$(handle);
        return p;
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(
            "cannot instantiate the proxy of " + model.type().getName(), e);
      }
    }
  }

  private static final Map<Class<?>, Proxied> CACHE = new ConcurrentHashMap<>();

  private ProxyFactory() {}

  /** The proxy of {@code type}, generated on first use. */
  public static Proxied forClass(Class<?> type) {
    Proxied p = CACHE.get(type);
    if (p == null) {
      ClassModel model = ClassModel.of(type);
      p = CACHE.computeIfAbsent(type, t -> generate(model));
    }
    return p;
  }

  private static Proxied generate(ClassModel model) {
    Class<?> type = model.type();
    Map<Method, MethodModel> methods = model.methodsByReflection();
    try {
      Class<?> proxy =
          new ByteBuddy()
              .subclass(type)
              .name(type.getName() + "$VCorfuProxy")
              .defineField(HANDLE_FIELD, ObjectHandle.class, Visibility.PRIVATE)
              .implement(SmrProxy.class)
              .method(
                  ElementMatchers.named("getVcorfuHandle$")
                      .or(ElementMatchers.named("setVcorfuHandle$")))
              .intercept(FieldAccessor.ofField(HANDLE_FIELD))
              .method(anyOf(methods.keySet().toArray(new Method[0])))
              .intercept(MethodDelegation.to(new Interceptor(methods)))
              .make()
              .load(type.getClassLoader(), loadingStrategy(type))
              .getLoaded();
      Constructor<?> c = proxy.getDeclaredConstructor();
      c.setAccessible(true);
      return new Proxied(model, c);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      throw new ObjectOpenException(
          "cannot generate a proxy for class " + type.getName() + ": " + e.getMessage(), e);
    }
  }

  private static ClassLoadingStrategy<ClassLoader> loadingStrategy(Class<?> type) {
    if (ClassInjector.UsingLookup.isAvailable()) {
      try {
        return ClassLoadingStrategy.UsingLookup.of(
            MethodHandles.privateLookupIn(type, MethodHandles.lookup()));
      } catch (IllegalAccessException e) {
        // The class's module does not open its package to the runtime: fall back to a child loader.
      }
    }
    return ClassLoadingStrategy.Default.WRAPPER;
  }
}
