package io.vcorfu.runtime.proxy;

import static net.bytebuddy.matcher.ElementMatchers.anyOf;

import io.vcorfu.runtime.ObjectOpenException;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.loading.ClassInjector;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.implementation.MethodDelegation;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * One Byte Buddy subclass per object class (cached while the class is loaded), overriding only the
 * annotated methods; every other method runs unchanged on the proxy instance. Thread-safe.
 *
 * <p>A class whose proxy was written at build time ({@link ProxyClassWriter}: the collections') has
 * it loaded as any other class of its jar, which spares a short-lived process the generation (Byte
 * Buddy's model of the class and the bytes written, most of the cost of opening the first map); the
 * proxy is the same class either way. Any other class has its proxy generated on first use.
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

  /**
   * Kept with each class (not in a map of classes), so a class whose loader is otherwise
   * unreachable is unloaded with its proxy: a remote-view host drops the classes clients shipped
   * it.
   */
  private static final ClassValue<Slot> CACHE =
      new ClassValue<>() {
        @Override
        protected Slot computeValue(Class<?> type) {
          return new Slot(type);
        }
      };

  /**
   * Where one class's proxy is made once: every thread gets the same slot, and the first to ask
   * generates the proxy under its lock (two threads defining one proxy class would collide).
   */
  private static final class Slot {
    private final Class<?> type;
    private volatile Proxied proxied; // written under this

    Slot(Class<?> type) {
      this.type = type;
    }

    Proxied get() {
      Proxied p = proxied;
      if (p != null) {
        return p;
      }
      synchronized (this) {
        if (proxied == null) {
          proxied = proxyOf(ClassModel.of(type));
        }
        return proxied;
      }
    }
  }

  private ProxyFactory() {}

  /**
   * The proxy of {@code type}: the one written at build time if any, else generated on first use.
   */
  public static Proxied forClass(Class<?> type) {
    return CACHE.get(type).get();
  }

  /** The name of {@code type}'s proxy class. */
  static String proxyName(Class<?> type) {
    return type.getName() + "$VCorfuProxy";
  }

  /**
   * Writes the proxy class of {@code model}'s class (and its helper classes) under {@code dir}, as
   * {@link #prebuilt} finds it.
   */
  static void write(ClassModel model, java.io.File dir) throws java.io.IOException {
    proxyClass(model).make().saveIn(dir);
  }

  /**
   * The proxy class of {@code model}'s class; its {@link Interceptor} is set when it is loaded
   * through Byte Buddy, and by {@link #prebuilt} for a class written to a jar.
   */
  private static net.bytebuddy.dynamic.DynamicType.Builder<?> proxyClass(ClassModel model) {
    Class<?> type = model.type();
    Map<Method, MethodModel> methods = model.methodsByReflection();
    return new ByteBuddy()
        .subclass(type)
        .name(proxyName(type))
        .defineField(HANDLE_FIELD, ObjectHandle.class, Visibility.PRIVATE)
        .implement(SmrProxy.class)
        .method(
            ElementMatchers.named("getVcorfuHandle$").or(ElementMatchers.named("setVcorfuHandle$")))
        .intercept(FieldAccessor.ofField(HANDLE_FIELD))
        .method(anyOf(methods.keySet().toArray(new Method[0])))
        .intercept(MethodDelegation.to(new Interceptor(methods)));
  }

  private static Proxied proxyOf(ClassModel model) {
    Class<?> type = model.type();
    try {
      Class<?> proxy = prebuilt(model);
      if (proxy == null) {
        proxy =
            proxyClass(model).make().load(type.getClassLoader(), loadingStrategy(type)).getLoaded();
      }
      Constructor<?> c = proxy.getDeclaredConstructor();
      c.setAccessible(true);
      return new Proxied(model, c);
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      throw new ObjectOpenException(
          "cannot generate a proxy for class " + type.getName() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The proxy class of {@code model}'s class that {@link ProxyClassWriter} wrote beside it, with
   * its interceptor set; null when there is none (or it is not a proxy of that class).
   */
  private static Class<?> prebuilt(ClassModel model) throws ReflectiveOperationException {
    Class<?> type = model.type();
    Class<?> proxy;
    try {
      proxy = Class.forName(proxyName(type), false, type.getClassLoader());
    } catch (ClassNotFoundException e) {
      return null;
    }
    if (proxy.getSuperclass() != type || !SmrProxy.class.isAssignableFrom(proxy)) {
      return null;
    }
    // Byte Buddy keeps the interceptor in a static field of the proxy, the only one of its type,
    // and sets it as it loads the class; a class from a jar gets it here.
    Field interceptor = null;
    for (Field f : proxy.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == Interceptor.class) {
        if (interceptor != null) {
          return null;
        }
        interceptor = f;
      }
    }
    if (interceptor == null) {
      return null;
    }
    interceptor.setAccessible(true);
    interceptor.set(null, new Interceptor(model.methodsByReflection()));
    return proxy;
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
