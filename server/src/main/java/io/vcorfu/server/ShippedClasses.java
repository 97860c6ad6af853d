package io.vcorfu.server;

import io.vcorfu.client.ClassBundle;
import io.vcorfu.protocol.BadRequestException;
import io.vcorfu.protocol.ClassesRefusedException;
import io.vcorfu.protocol.proto.ClassFileMsg;
import io.vcorfu.runtime.classes.ClassBundles;
import io.vcorfu.runtime.classes.ClassFileReader;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The class bundles clients shipped to this node's remote-view host, each with its own loader and
 * its own executor (its own runtime, so its hosted views and the types its serializer admitted are
 * its own): two versions of one class, or one class on one stream in two versions, never share a
 * class or a live view.
 *
 * <p>Invariant: a bundle is defined only from classes whose SHA-256 digest, computed here, is the
 * digest it is found by, after the caller's authorization (the node's {@code
 * --accept-remote-classes}, and {@code deploy} on the stream where the node authorizes requests)
 * was checked; so a call naming a digest runs exactly the class files some permitted principal
 * shipped under it, and only classes of that bundle (a call naming a digest and a class the bundle
 * does not hold is refused), and nothing a caller names by digest can be swapped for other code. A
 * bundle no call used for {@link RemoteClasses#idle} is dropped with its executor and views (then
 * its classes can be collected); at most {@link RemoteClasses#maxBundles} are held, none larger
 * than {@link RemoteClasses#maxBundleBytes}.
 *
 * <p>Thread-safe.
 */
final class ShippedClasses implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShippedClasses.class);

  /** One loaded bundle: its loader, its executor, calls running on it and when it was last used. */
  private static final class Loaded {
    final String type;
    final BundleLoader loader;
    final RemoteViewExecutor executor;
    int running; // guarded by ShippedClasses.this
    long lastUsedNanos; // guarded by ShippedClasses.this

    Loaded(String type, BundleLoader loader, RemoteViewExecutor executor) {
      this.type = type;
      this.loader = loader;
      this.executor = executor;
    }
  }

  /** A bundle's executor held for one call; give it back with {@link #close}. */
  final class Use implements AutoCloseable {
    private final Loaded loaded;

    private Use(Loaded loaded) {
      this.loaded = loaded;
    }

    RemoteViewExecutor executor() {
      return loaded.executor;
    }

    @Override
    public void close() {
      synchronized (ShippedClasses.this) {
        loaded.running--;
        loaded.lastUsedNanos = System.nanoTime();
      }
    }
  }

  private final RemoteClasses limits;
  private final ClassLoader parent;
  private final Function<ClassLoader, RemoteViewExecutor> executors;
  private final Map<String, Loaded> byDigest = new LinkedHashMap<>(); // guarded by this
  private final ScheduledExecutorService sweeper;
  private final Object loading = new Object();
  private boolean closed; // guarded by this

  /**
   * @param parent the parent of every bundle's loader: the host's own
   * @param executors a new executor over a new runtime, loading object classes from the loader
   */
  ShippedClasses(
      RemoteClasses limits,
      ClassLoader parent,
      Function<ClassLoader, RemoteViewExecutor> executors) {
    this.limits = limits;
    this.parent = parent;
    this.executors = executors;
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vcorfu-shipped-classes");
              t.setDaemon(true);
              return t;
            });
    long every = Math.max(10, Math.min(limits.idle().toMillis() / 4, 10_000));
    sweeper.scheduleWithFixedDelay(this::dropIdle, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * The loaded bundle with {@code digest}, held for one call of its class {@code type}; null when
   * none is loaded.
   *
   * @throws BadRequestException if {@code type} is not a class of the bundle: a digest names a
   *     version of the classes it holds, and runs nothing else
   */
  synchronized Use use(String type, byte[] digest) {
    Loaded l = byDigest.get(HexFormat.of().formatHex(digest));
    if (l == null) {
      return null;
    }
    if (!l.loader.holds(type)) {
      throw new BadRequestException(
          "the class bundle this call names was shipped for " + l.type + " and has no " + type);
    }
    l.running++;
    return new Use(l);
  }

  /**
   * Checks the bundle {@code files} of {@code type} sent under {@code digest}, defines it and holds
   * it for one call (the caller's authorization to ship it is checked).
   *
   * @throws BadRequestException if it is malformed (not class files, not the classes their names
   *     say, without {@code type}, with classes of vcorfu or the JDK, not matching {@code digest},
   *     classes the JVM cannot define) or larger than this node takes
   * @throws ClassesRefusedException if the node holds its limit of bundles, all in use
   */
  Use load(String type, byte[] digest, List<ClassFileMsg> files) {
    Map<String, byte[]> classes = check(type, digest, files);
    String hex = HexFormat.of().formatHex(digest);
    // Loads run one at a time (so a bundle is loaded once, and the limit holds); calls on loaded
    // bundles go on meanwhile: this object's lock guards only the map, never a load or a close.
    synchronized (loading) {
      Loaded evicted;
      synchronized (this) {
        if (closed) {
          throw new io.vcorfu.protocol.NotServingException("remote-view host");
        }
        Use loaded = use(type, digest);
        if (loaded != null) {
          return loaded;
        }
        evicted = makeRoom(type);
      }
      if (evicted != null) {
        close(evicted, "to make room");
      }
      BundleLoader loader =
          new BundleLoader("vcorfu-bundle-" + type + "-" + hex.substring(0, 12), classes, parent);
      defineAll(type, loader, classes);
      Loaded l = new Loaded(type, loader, executors.apply(loader));
      int held;
      synchronized (this) {
        if (closed) {
          close(l, "the node stops");
          throw new io.vcorfu.protocol.NotServingException("remote-view host");
        }
        l.lastUsedNanos = System.nanoTime();
        l.running++;
        byDigest.put(hex, l);
        held = byDigest.size();
      }
      LOG.info(
          "loaded {} classes shipped for {} (bundle {}, {} bundles held)",
          classes.size(),
          type,
          hex.substring(0, 12),
          held);
      return new Use(l);
    }
  }

  private Map<String, byte[]> check(String type, byte[] digest, List<ClassFileMsg> files) {
    long bytes = 0;
    for (ClassFileMsg f : files) {
      bytes += f.getName().length() + f.getBytes().size();
    }
    if (bytes > limits.maxBundleBytes()) {
      throw new BadRequestException(
          "the classes shipped for "
              + type
              + " are "
              + bytes
              + " bytes, over this node's limit of "
              + limits.maxBundleBytes()
              + " bytes per bundle (vcorfu server --remote-classes-max-mb); nothing was loaded");
    }
    Map<String, byte[]> classes = new HashMap<>();
    for (ClassFileMsg f : files) {
      String name = f.getName();
      if (ClassBundles.isShared(name)) {
        throw malformed(type, "it carries " + name + ", a class of vcorfu or the JDK");
      }
      byte[] file = f.getBytes().toByteArray();
      String self;
      try {
        self = ClassFileReader.read(file).self();
      } catch (IllegalArgumentException e) {
        throw malformed(type, "what it sends as " + name + " is " + e.getMessage());
      }
      if (!self.equals(name)) {
        throw malformed(type, "the class file sent as " + name + " is class " + self);
      }
      if (classes.put(name, file) != null) {
        throw malformed(type, "it carries " + name + " twice");
      }
    }
    if (!classes.containsKey(type)) {
      throw malformed(type, "it does not carry " + type + " itself");
    }
    if (!ClassBundle.of(type, classes).hasDigest(digest)) {
      throw malformed(type, "its classes do not have the digest the call names");
    }
    return classes;
  }

  /**
   * Defines every class of the bundle (none initialized, so none of its code runs), so that one the
   * JVM cannot define is refused now, with the bundle, rather than on some later call.
   */
  private static void defineAll(String type, BundleLoader loader, Map<String, byte[]> classes) {
    for (String name : classes.keySet()) {
      try {
        Class.forName(name, false, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw malformed(
            type,
            "class "
                + name
                + " cannot be defined ("
                + e
                + "; a class it needs from outside the bundle must be on the node's --classpath)");
      }
    }
  }

  private static BadRequestException malformed(String type, String why) {
    return new BadRequestException(
        "the classes shipped for " + type + " are not a valid bundle: " + why + "; nothing loaded");
  }

  /**
   * Removes, and returns for closing, the least recently used idle bundle when the node holds its
   * limit; null when there is room.
   */
  private Loaded makeRoom(String type) {
    if (byDigest.size() < limits.maxBundles()) {
      return null;
    }
    Map.Entry<String, Loaded> oldest = null;
    for (Map.Entry<String, Loaded> e : byDigest.entrySet()) {
      if (e.getValue().running == 0
          && (oldest == null || e.getValue().lastUsedNanos < oldest.getValue().lastUsedNanos)) {
        oldest = e;
      }
    }
    if (oldest == null) {
      throw new ClassesRefusedException(
          type,
          "this node holds its limit of "
              + limits.maxBundles()
              + " class bundles, all in use; try again, or raise vcorfu server"
              + " --remote-classes-max");
    }
    return byDigest.remove(oldest.getKey());
  }

  /** Drops every bundle idle for the configured time. */
  void dropIdle() {
    long now = System.nanoTime();
    long idle = limits.idle().toNanos();
    List<Loaded> old = new ArrayList<>();
    synchronized (this) {
      for (Iterator<Loaded> it = byDigest.values().iterator(); it.hasNext(); ) {
        Loaded l = it.next();
        if (l.running == 0 && now - l.lastUsedNanos >= idle) {
          it.remove();
          old.add(l);
        }
      }
    }
    for (Loaded l : old) {
      close(l, "unused for " + limits.idle());
    }
  }

  /** Closes a bundle removed from the map: its executor, runtime and hosted views. */
  private static void close(Loaded l, String why) {
    try {
      l.executor.close();
    } catch (RuntimeException e) {
      LOG.warn("closing the views of the classes shipped for {} failed: {}", l.type, e.toString());
    }
    LOG.info("dropped the classes shipped for {} ({}): {}", l.type, l.loader.getName(), why);
  }

  /** How many bundles are held (for tests and the node's status). */
  synchronized int held() {
    return byDigest.size();
  }

  /** The loader of the bundle with digest {@code hex}, weakly; null when it is not held (tests). */
  synchronized WeakReference<ClassLoader> loaderOf(String hex) {
    Loaded l = byDigest.get(hex);
    return l == null ? null : new WeakReference<>(l.loader);
  }

  @Override
  public void close() {
    List<Loaded> all;
    synchronized (this) {
      closed = true;
      sweeper.shutdownNow();
      all = List.copyOf(byDigest.values());
      byDigest.clear();
    }
    for (Loaded l : all) {
      close(l, "the node stops");
    }
  }
}
