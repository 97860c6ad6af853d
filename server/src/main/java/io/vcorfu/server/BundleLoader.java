package io.vcorfu.server;

import java.util.Map;

/**
 * The class loader of one shipped class bundle (one version of one object class): defines the
 * bundle's classes itself, child-first, and leaves every other class to its parent, the host's own
 * loader, so vcorfu's runtime, the JDK and the node's libraries are the node's. A class nested in
 * one of the bundle's ({@code Outer$Name}) is never the parent's: it is the bundle's, or generated
 * here (the object's proxy). Two bundles never see each other's classes. Holds the class files
 * until it is dropped; defines each class once, on first use. Thread-safe (parallel capable).
 */
final class BundleLoader extends ClassLoader {
  static {
    registerAsParallelCapable();
  }

  private final Map<String, byte[]> classes;

  /**
   * @param name the loader's name, shown in stack traces and heap dumps
   * @param classes the bundle's class files by binary name (checked: none is vcorfu's or the JDK's)
   */
  BundleLoader(String name, Map<String, byte[]> classes, ClassLoader parent) {
    super(name, parent);
    this.classes = Map.copyOf(classes);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    byte[] file = classes.get(name);
    if (file == null) {
      if (nestedInBundle(name)) {
        // Not the parent's: a class nested in one of the bundle's is the bundle's or generated
        // into this loader (the object's proxy). Asking the parent would record this loader as
        // loading the parent's class of that name (the class path's version's proxy), and the
        // proxy generated here would then collide with it.
        throw new ClassNotFoundException(name);
      }
      return super.loadClass(name, resolve);
    }
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        c = defineClass(name, file, 0, file.length);
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  /** Whether {@code name} is a class of the bundle. */
  boolean holds(String name) {
    return classes.containsKey(name);
  }

  private boolean nestedInBundle(String name) {
    int cut = name.lastIndexOf('$');
    while (cut > 0) {
      if (classes.containsKey(name.substring(0, cut))) {
        return true;
      }
      cut = name.lastIndexOf('$', cut - 1);
    }
    return false;
  }

  @Override
  protected Class<?> findClass(String name) throws ClassNotFoundException {
    if (classes.containsKey(name)) {
      return loadClass(name, false);
    }
    throw new ClassNotFoundException(name);
  }
}
