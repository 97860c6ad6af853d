package io.vcorfu.runtime.proxy;

import java.io.File;
import java.io.IOException;

/**
 * Writes the proxy classes of object classes at build time, beside their classes, so that {@link
 * ProxyFactory} loads them instead of generating them in every process (the collections module runs
 * it on its classes once they compile). Usage: {@code ProxyClassWriter CLASSES_DIR CLASS...}.
 */
public final class ProxyClassWriter {
  private ProxyClassWriter() {}

  /** Writes the proxy of each named class (and its helper classes) under {@code args[0]}. */
  public static void main(String[] args) throws IOException, ClassNotFoundException {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: ProxyClassWriter CLASSES_DIR CLASS...");
    }
    File dir = new File(args[0]);
    ClassLoader loader = ProxyClassWriter.class.getClassLoader();
    for (int i = 1; i < args.length; i++) {
      Class<?> type = Class.forName(args[i], false, loader);
      ProxyFactory.write(ClassModel.of(type), dir);
    }
  }
}
