package io.vcorfu.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One version of an object class as a remote-view host can load it: the class files of the object
 * class {@code type} and of the classes it references, transitively, that come from its own code
 * source (never vcorfu's, the JDK's or a library's, which the host has), by binary name; and the
 * bundle's digest, which names that version on the wire.
 *
 * <p>The digest is SHA-256 over the classes in name order, each as its name's UTF-8 length (4
 * bytes, big-endian), the name, its class file's length (4 bytes) and the class file: equal digests
 * mean the same class files, so a host that loaded a bundle once runs it for every caller naming
 * its digest. Immutable.
 */
public final class ClassBundle {
  private final String type;
  private final SortedMap<String, byte[]> classes;
  private final byte[] digest;
  private final long bytes;

  private ClassBundle(String type, SortedMap<String, byte[]> classes) {
    this.type = type;
    this.classes = Collections.unmodifiableSortedMap(classes);
    this.digest = digestOf(classes);
    long n = 0;
    for (Map.Entry<String, byte[]> e : classes.entrySet()) {
      n += e.getKey().length() + e.getValue().length;
    }
    this.bytes = n;
  }

  /**
   * The bundle of {@code type} holding {@code classes} (binary name to class file), which must
   * include {@code type} itself.
   *
   * @throws IllegalArgumentException if it does not
   */
  public static ClassBundle of(String type, Map<String, byte[]> classes) {
    if (!classes.containsKey(type)) {
      throw new IllegalArgumentException("a bundle of " + type + " must hold its class file");
    }
    SortedMap<String, byte[]> copy = new TreeMap<>();
    classes.forEach((name, file) -> copy.put(name, file.clone()));
    return new ClassBundle(type, copy);
  }

  /** The digest of {@code classes} (binary name to class file), as {@link ClassBundle} defines. */
  public static byte[] digestOf(Map<String, byte[]> classes) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
    for (Map.Entry<String, byte[]> e : new TreeMap<>(classes).entrySet()) {
      byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
      sha.update(lengthOf(name.length));
      sha.update(name);
      sha.update(lengthOf(e.getValue().length));
      sha.update(e.getValue());
    }
    return sha.digest();
  }

  private static byte[] lengthOf(int n) {
    return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
  }

  /** The object class's binary name. */
  public String type() {
    return type;
  }

  /** The classes, by binary name, in name order; the arrays are the bundle's own: do not change. */
  public SortedMap<String, byte[]> classes() {
    return classes;
  }

  public byte[] digest() {
    return digest.clone();
  }

  /** The digest in hex. */
  public String digestHex() {
    return HexFormat.of().formatHex(digest);
  }

  /** Whether {@code other} is this bundle's digest. */
  public boolean hasDigest(byte[] other) {
    return Arrays.equals(digest, other);
  }

  /** The names' and class files' bytes together: what the bundle costs to send and to hold. */
  public long bytes() {
    return bytes;
  }

  @Override
  public String toString() {
    return "bundle of " + type + " (" + classes.size() + " classes, " + digestHex() + ")";
  }
}
