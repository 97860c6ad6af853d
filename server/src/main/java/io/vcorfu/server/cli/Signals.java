package io.vcorfu.server.cli;

/** The process signals the serving commands ({@code server}, {@code zookeeper}) stop on. */
final class Signals {
  private Signals() {}

  /**
   * Runs {@code action} when the process receives signal {@code name} ({@code TERM}, {@code INT})
   * instead of the JVM's default (run the shutdown hooks, exit 128 + the signal's number); false
   * when this JVM does not let the signal be handled. The JDK's signal API is reached by
   * reflection: it is not part of the platform's public API, and not every JVM has it.
   */
  static boolean on(String name, Runnable action) {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object signal = signalClass.getConstructor(String.class).newInstance(name);
      Object handler =
          java.lang.reflect.Proxy.newProxyInstance(
              handlerClass.getClassLoader(),
              new Class<?>[] {handlerClass},
              (proxy, method, args) ->
                  switch (method.getName()) {
                    case "handle" -> {
                      action.run();
                      yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> "vcorfu handler of SIG" + name;
                  });
      signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
      return true;
    } catch (ReflectiveOperationException | RuntimeException unsupported) {
      return false;
    }
  }
}
