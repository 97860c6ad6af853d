package io.vcorfu.runtime.classes;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads what a class file names: its own class and every class its constant pool refers to, as a
 * CONSTANT_Class entry or inside a descriptor or generic signature (a type that appears only in a
 * field's or method's declaration), by binary name. Reads the header and the constant pool only.
 */
public final class ClassFileReader {
  private static final int MAGIC = 0xCAFEBABE;

  /** A class file's own class and the classes it refers to (its own excluded), by binary name. */
  public record Names(String self, Set<String> referenced) {}

  private ClassFileReader() {}

  /**
   * The names in {@code classFile}.
   *
   * @throws IllegalArgumentException if it is not a well-formed class file header and constant pool
   */
  public static Names read(byte[] classFile) {
    try {
      return readOrThrow(new DataInputStream(new ByteArrayInputStream(classFile)));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("not a class file (" + e.getMessage() + ")", e);
    }
  }

  private static Names readOrThrow(DataInputStream in) throws IOException {
    if (in.readInt() != MAGIC) {
      throw new IOException("it does not start with 0xCAFEBABE");
    }
    in.readUnsignedShort(); // minor version
    in.readUnsignedShort(); // major version
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    int[] classNameIndex = new int[count];
    boolean[] isClass = new boolean[count];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8[i] = in.readUTF();
        case 7 -> {
          isClass[i] = true;
          classNameIndex[i] = in.readUnsignedShort();
        }
        case 3, 4 -> in.readInt();
        case 5, 6 -> {
          in.readLong();
          i++; // eight-byte constants take two slots
        }
        case 8, 16, 19, 20 -> in.readUnsignedShort();
        case 9, 10, 11, 12, 17, 18 -> in.readInt();
        case 15 -> {
          in.readUnsignedByte();
          in.readUnsignedShort();
        }
        default -> throw new IOException("unknown constant pool tag " + tag + " at " + i);
      }
    }
    in.readUnsignedShort(); // access flags
    int thisClass = in.readUnsignedShort();
    if (thisClass <= 0 || thisClass >= count || !isClass[thisClass]) {
      throw new IOException("this_class " + thisClass + " is not a class constant");
    }
    String self = nameAt(utf8, classNameIndex[thisClass]);
    Set<String> referenced = new TreeSet<>();
    for (int i = 1; i < count; i++) {
      if (isClass[i]) {
        addInternalName(nameAt(utf8, classNameIndex[i]), referenced);
      } else if (utf8[i] != null) {
        addFromDescriptor(utf8[i], referenced);
      }
    }
    String selfBinary = self.replace('/', '.');
    referenced.remove(selfBinary);
    return new Names(selfBinary, referenced);
  }

  private static String nameAt(String[] utf8, int index) throws IOException {
    if (index <= 0 || index >= utf8.length || utf8[index] == null) {
      throw new IOException("constant " + index + " is not a UTF-8 name");
    }
    return utf8[index];
  }

  /** A CONSTANT_Class name: an internal name, or an array descriptor. */
  private static void addInternalName(String name, Set<String> out) {
    if (name.startsWith("[")) {
      addFromDescriptor(name, out);
    } else if (!name.isEmpty()) {
      out.add(name.replace('/', '.'));
    }
  }

  /**
   * Every {@code L<name>;} (or {@code L<name><}) in a descriptor or signature. Any UTF-8 constant
   * is scanned, so a string that merely looks like one names a candidate too: the bundle keeps only
   * candidates that are class files of the same code source, so that costs nothing but a lookup.
   */
  private static void addFromDescriptor(String s, Set<String> out) {
    int i = s.indexOf('L');
    while (i >= 0 && i < s.length()) {
      int end = i + 1;
      while (end < s.length() && isNameChar(s.charAt(end))) {
        end++;
      }
      if (end > i + 1
          && end < s.length()
          && (s.charAt(end) == ';' || s.charAt(end) == '<')
          && s.charAt(end - 1) != '/') {
        out.add(s.substring(i + 1, end).replace('/', '.'));
      }
      i = s.indexOf('L', i + 1);
    }
  }

  private static boolean isNameChar(char c) {
    return c != ';' && c != '<' && c != '>' && c != '[' && c != '.' && c != ':' && c != ' ';
  }
}
