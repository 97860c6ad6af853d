package io.vcorfu.runtime.serialization;

import java.lang.reflect.Constructor;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default allow-list serializer: a compact tagged binary format of vcorfu's own. Never uses
 * Java native serialization and never loads a class named by a payload.
 *
 * <p>Allowed values: null, the eight primitive wrappers, {@link String}, {@code byte[]}, {@link
 * Instant}, {@link UUID}, {@link List}, {@link java.util.Set} and {@link Map} of allowed values,
 * records and enums that were admitted (by {@link #permit}, which the runtime calls with the types
 * an opened object's methods declare, or by {@link #allow}), and types registered with a {@link
 * TypeCodec}. Anything else fails with {@link UnsupportedTypeException} when encoded, so a bad
 * argument is rejected at the call site before anything is appended.
 *
 * <p>Format: one tag byte, then the body. Tags: 0 null, 1 false, 2 true, 3 byte, 4 short (zig-zag
 * varint), 5 char (varint), 6 int (zig-zag varint), 7 long (zig-zag varint), 8 float (raw int bits
 * as varint), 9 double (raw long bits, fixed 8 bytes), 10 string (varint length + UTF-8), 11 bytes
 * (varint length + bytes), 12 list (varint count + values), 13 set (varint count + values sorted by
 * their encoded bytes), 14 map (varint count + key/value pairs sorted by encoded key), 15 record
 * (class name, varint count, component values in declaration order), 16 enum (class name, constant
 * name), 17 instant (zig-zag seconds, varint nanos), 18 registered type (registered name, varint
 * length + codec bytes), 19 uuid (two fixed longs). Sorting sets and maps makes equal values encode
 * to equal bytes in every JVM, whatever their iteration order.
 *
 * <p>Thread-safe. Decoding is bounded: nesting deeper than {@value #MAX_DEPTH} levels, truncated
 * input and counts larger than the remaining input are rejected.
 */
public final class DefaultSerializer implements Serializer {
  static final int MAX_DEPTH = 64;

  private static final int NULL = 0;
  private static final int FALSE = 1;
  private static final int TRUE = 2;
  private static final int BYTE = 3;
  private static final int SHORT = 4;
  private static final int CHAR = 5;
  private static final int INT = 6;
  private static final int LONG = 7;
  private static final int FLOAT = 8;
  private static final int DOUBLE = 9;
  private static final int STRING = 10;
  private static final int BYTES = 11;
  private static final int LIST = 12;
  private static final int SET = 13;
  private static final int MAP = 14;
  private static final int RECORD = 15;
  private static final int ENUM = 16;
  private static final int INSTANT = 17;
  private static final int USER = 18;
  private static final int UUID_TAG = 19;

  private record Registered(String name, Class<?> type, TypeCodec<Object> codec) {}

  private final Map<String, Class<?>> admittedByName = new ConcurrentHashMap<>();
  private final Map<Class<?>, Constructor<?>> recordConstructors = new ConcurrentHashMap<>();
  private final Map<Class<?>, Registered> registeredByType = new ConcurrentHashMap<>();

  /** Whether any type was registered: most serializers have none, and skip the lookup. */
  private volatile boolean anyRegistered;

  /**
   * Each thread's spare writers, reused for whole values and maps' entries so that encoding does
   * not grow a new buffer every time; one holding more than {@link #MAX_SPARE_BYTES} is dropped.
   */
  private final ThreadLocal<ArrayDeque<BinaryWriter>> spares =
      ThreadLocal.withInitial(ArrayDeque::new);

  static final int MAX_SPARE_BYTES = 1 << 20;
  private final Map<String, Registered> registeredByName = new ConcurrentHashMap<>();

  /**
   * Registers a user type under a stable {@code name} (the name is what the log carries, so keep it
   * unchanged across versions of the class). Returns this serializer.
   */
  @SuppressWarnings("unchecked")
  public synchronized <T> DefaultSerializer register(
      Class<T> type, String name, TypeCodec<T> codec) {
    Registered previous = registeredByName.get(name);
    if (previous != null && previous.type() != type) {
      throw new IllegalArgumentException(
          "the name " + name + " is already registered for " + previous.type().getName());
    }
    Registered r = new Registered(name, type, (TypeCodec<Object>) codec);
    registeredByName.put(name, r);
    registeredByType.put(type, r);
    anyRegistered = true;
    return this;
  }

  /**
   * Admits a record or enum type (and, for a record, the records and enums its components declare).
   */
  public DefaultSerializer allow(Class<?> type) {
    if (!type.isRecord() && !type.isEnum()) {
      throw new IllegalArgumentException(
          type.getName()
              + " is neither a record nor an enum; register it with a TypeCodec instead");
    }
    permit(type);
    return this;
  }

  @Override
  public void permit(Type declaredType) {
    admit(declaredType, 0);
  }

  private void admit(Type t, int depth) {
    if (depth > MAX_DEPTH) {
      return;
    }
    if (t instanceof Class<?> c) {
      if (c.isArray()) {
        admit(c.getComponentType(), depth + 1);
      } else if (c.isEnum()) {
        admittedByName.putIfAbsent(c.getName(), c);
      } else if (c.isRecord() && admittedByName.putIfAbsent(c.getName(), c) == null) {
        for (RecordComponent rc : c.getRecordComponents()) {
          admit(rc.getGenericType(), depth + 1);
        }
      }
    } else if (t instanceof ParameterizedType p) {
      admit(p.getRawType(), depth + 1);
      for (Type a : p.getActualTypeArguments()) {
        admit(a, depth + 1);
      }
    } else if (t instanceof WildcardType w) {
      for (Type b : w.getUpperBounds()) {
        admit(b, depth + 1);
      }
    } else if (t instanceof GenericArrayType g) {
      admit(g.getGenericComponentType(), depth + 1);
    }
  }

  @Override
  public byte[] serialize(Object value) {
    BinaryWriter out = spare();
    try {
      encode(value, out, 0);
      return out.toByteArray();
    } finally {
      giveBack(out);
    }
  }

  private BinaryWriter spare() {
    BinaryWriter w = spares.get().pollFirst();
    return w != null ? w : new BinaryWriter(this);
  }

  private void giveBack(BinaryWriter w) {
    if (w.capacity() <= MAX_SPARE_BYTES) {
      w.reset();
      spares.get().addFirst(w);
    }
  }

  @Override
  public Object deserialize(byte[] bytes) {
    BinaryReader in = new BinaryReader(bytes, this);
    Object v = decode(in);
    in.expectEnd();
    return v;
  }

  void encode(Object v, BinaryWriter out, int depth) {
    if (depth > MAX_DEPTH) {
      throw new SerializationException("the value nests deeper than " + MAX_DEPTH + " levels");
    }
    if (v == null) {
      out.writeByte(NULL);
    } else if (v instanceof Boolean b) {
      out.writeByte(b ? TRUE : FALSE);
    } else if (v instanceof Byte b) {
      out.writeByte(BYTE).writeByte(b);
    } else if (v instanceof Short s) {
      out.writeByte(SHORT).writeSignedVarLong(s);
    } else if (v instanceof Character c) {
      out.writeByte(CHAR).writeVarLong(c);
    } else if (v instanceof Integer i) {
      out.writeByte(INT).writeSignedVarLong(i);
    } else if (v instanceof Long l) {
      out.writeByte(LONG).writeSignedVarLong(l);
    } else if (v instanceof Float f) {
      out.writeByte(FLOAT).writeVarLong(Integer.toUnsignedLong(Float.floatToIntBits(f)));
    } else if (v instanceof Double d) {
      out.writeByte(DOUBLE).writeFixedLong(Double.doubleToLongBits(d));
    } else if (v instanceof String s) {
      out.writeByte(STRING).writeString(s);
    } else if (v instanceof byte[] b) {
      out.writeByte(BYTES).writeBytes(b);
    } else if (v instanceof Instant i) {
      out.writeByte(INSTANT).writeSignedVarLong(i.getEpochSecond()).writeVarLong(i.getNano());
    } else if (v instanceof UUID u) {
      out.writeByte(UUID_TAG)
          .writeFixedLong(u.getMostSignificantBits())
          .writeFixedLong(u.getLeastSignificantBits());
    } else if (anyRegistered && registeredByType.containsKey(v.getClass())) {
      Registered r = registeredByType.get(v.getClass());
      BinaryWriter body = new BinaryWriter(this);
      r.codec().write(v, body);
      out.writeByte(USER).writeString(r.name()).writeBytes(body.toByteArray());
    } else if (v instanceof List<?> list) {
      out.writeByte(LIST).writeVarLong(list.size());
      for (Object e : list) {
        encode(e, out, depth + 1);
      }
    } else if (v instanceof java.util.Set<?> set) {
      out.writeByte(SET).writeVarLong(set.size());
      for (byte[] e : sortedEncodings(set, depth)) {
        out.writeRaw(e);
      }
    } else if (v instanceof Map<?, ?> map) {
      encodeMap(map, out, depth);
    } else if (v instanceof Enum<?> e) {
      Class<?> type = e.getDeclaringClass();
      requireAdmitted(type);
      out.writeByte(ENUM).writeString(type.getName()).writeString(e.name());
    } else if (v instanceof Record r) {
      encodeRecord(r, out, depth);
    } else {
      throw new UnsupportedTypeException(
          v.getClass().getName(),
          "values of type "
              + v.getClass().getName()
              + " cannot be serialized: allowed are primitives, strings, byte arrays, Instant,"
              + " UUID, lists, sets and maps of allowed values, records and enums declared by the"
              + " object's methods, and types registered with a TypeCodec");
    }
  }

  private List<byte[]> sortedEncodings(Collection<?> values, int depth) {
    List<byte[]> encoded = new ArrayList<>(values.size());
    for (Object e : values) {
      BinaryWriter w = new BinaryWriter(this);
      encode(e, w, depth + 1);
      encoded.add(w.toByteArray());
    }
    encoded.sort(Arrays::compareUnsigned);
    return encoded;
  }

  /**
   * A map's entries in the order of their keys' encodings (so equal maps encode alike): each entry
   * encoded once into one scratch buffer, key and value side by side, then copied in that order.
   */
  private void encodeMap(Map<?, ?> map, BinaryWriter out, int depth) {
    BinaryWriter scratch = spare();
    try {
      // Per entry: where its key starts, where its value starts, where the value ends.
      int[] bounds = new int[3 * Math.max(1, map.size())];
      int n = 0;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (3 * n == bounds.length) {
          bounds = Arrays.copyOf(bounds, 2 * bounds.length);
        }
        bounds[3 * n] = scratch.size();
        encode(e.getKey(), scratch, depth + 1);
        bounds[3 * n + 1] = scratch.size();
        encode(e.getValue(), scratch, depth + 1);
        bounds[3 * n + 2] = scratch.size();
        n++;
      }
      int[] order = KeyOrder.of(scratch.buffer(), bounds, n);
      out.writeByte(MAP).writeVarLong(n);
      byte[] buf = scratch.buffer();
      for (int i : order) {
        out.writeRaw(buf, bounds[3 * i], bounds[3 * i + 2] - bounds[3 * i]);
      }
    } finally {
      giveBack(scratch);
    }
  }

  private void encodeRecord(Record r, BinaryWriter out, int depth) {
    Class<?> type = r.getClass();
    requireAdmitted(type);
    RecordComponent[] components = type.getRecordComponents();
    out.writeByte(RECORD).writeString(type.getName()).writeVarLong(components.length);
    for (RecordComponent rc : components) {
      Object value;
      try {
        var accessor = rc.getAccessor();
        accessor.setAccessible(true);
        value = accessor.invoke(r);
      } catch (ReflectiveOperationException | RuntimeException e) {
        throw new SerializationException(
            "cannot read component " + rc.getName() + " of record " + type.getName(), e);
      }
      encode(value, out, depth + 1);
    }
  }

  private void requireAdmitted(Class<?> type) {
    if (admittedByName.get(type.getName()) != type) {
      throw new UnsupportedTypeException(
          type.getName(),
          (type.isEnum() ? "enum " : "record ")
              + type.getName()
              + " is not allowed: it is not declared by any opened object's methods; "
              + "admit it with DefaultSerializer.allow("
              + type.getSimpleName()
              + ".class)");
    }
  }

  Object decode(BinaryReader in) {
    if (++in.depth > MAX_DEPTH) {
      throw new SerializationException("the payload nests deeper than " + MAX_DEPTH + " levels");
    }
    try {
      return decodeTagged(in);
    } finally {
      in.depth--;
    }
  }

  private Object decodeTagged(BinaryReader in) {
    int tag = in.readByte();
    switch (tag) {
      case NULL:
        return null;
      case FALSE:
        return Boolean.FALSE;
      case TRUE:
        return Boolean.TRUE;
      case BYTE:
        return (byte) in.readByte();
      case SHORT:
        return (short) in.readSignedVarLong();
      case CHAR:
        return (char) in.readVarLong();
      case INT:
        return (int) in.readSignedVarLong();
      case LONG:
        return in.readSignedVarLong();
      case FLOAT:
        return Float.intBitsToFloat((int) in.readVarLong());
      case DOUBLE:
        return Double.longBitsToDouble(in.readFixedLong());
      case STRING:
        return in.readString();
      case BYTES:
        return in.readBytes();
      case INSTANT:
        {
          long seconds = in.readSignedVarLong();
          long nanos = in.readVarLong();
          try {
            return Instant.ofEpochSecond(seconds, nanos);
          } catch (DateTimeException | ArithmeticException e) {
            throw new SerializationException(
                "the payload's instant (" + seconds + " s, " + nanos + " ns) is out of range", e);
          }
        }
      case UUID_TAG:
        return new UUID(in.readFixedLong(), in.readFixedLong());
      case LIST:
        {
          int n = in.readLength();
          List<Object> list = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            list.add(decode(in));
          }
          return list;
        }
      case SET:
        {
          int n = in.readLength();
          java.util.Set<Object> set = new LinkedHashSet<>();
          for (int i = 0; i < n; i++) {
            set.add(decode(in));
          }
          return set;
        }
      case MAP:
        {
          int n = in.readLength();
          Map<Object, Object> map = new LinkedHashMap<>();
          for (int i = 0; i < n; i++) {
            map.put(decode(in), decode(in));
          }
          return map;
        }
      case ENUM:
        return decodeEnum(in);
      case RECORD:
        return decodeRecord(in);
      case USER:
        return decodeRegistered(in);
      default:
        throw new SerializationException("unknown type tag " + tag + " in the payload");
    }
  }

  private Object decodeEnum(BinaryReader in) {
    String name = in.readString();
    Class<?> type = admittedByName.get(name);
    if (type == null || !type.isEnum()) {
      throw new UnsupportedTypeException(
          name, "the payload names enum " + name + ", which is not allowed here");
    }
    String constant = in.readString();
    for (Object c : type.getEnumConstants()) {
      if (((Enum<?>) c).name().equals(constant)) {
        return c;
      }
    }
    throw new SerializationException("enum " + name + " has no constant " + constant);
  }

  private Object decodeRecord(BinaryReader in) {
    String name = in.readString();
    Class<?> type = admittedByName.get(name);
    if (type == null || !type.isRecord()) {
      throw new UnsupportedTypeException(
          name, "the payload names record " + name + ", which is not allowed here");
    }
    RecordComponent[] components = type.getRecordComponents();
    int n = in.readLength();
    if (n != components.length) {
      throw new SerializationException(
          "record "
              + name
              + " has "
              + components.length
              + " components but the payload carries "
              + n);
    }
    Object[] args = new Object[n];
    for (int i = 0; i < n; i++) {
      args[i] = decode(in);
    }
    try {
      return recordConstructors
          .computeIfAbsent(type, DefaultSerializer::canonicalConstructor)
          .newInstance(args);
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      throw new SerializationException("cannot rebuild record " + name + " from the payload", e);
    }
  }

  private static Constructor<?> canonicalConstructor(Class<?> type) {
    Class<?>[] types =
        Arrays.stream(type.getRecordComponents())
            .map(RecordComponent::getType)
            .toArray(Class<?>[]::new);
    try {
      Constructor<?> c = type.getDeclaredConstructor(types);
      c.setAccessible(true);
      return c;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new SerializationException(
          "record " + type.getName() + " has no usable canonical constructor", e);
    }
  }

  private Object decodeRegistered(BinaryReader in) {
    String name = in.readString();
    Registered r = registeredByName.get(name);
    if (r == null) {
      throw new UnsupportedTypeException(
          name,
          "the payload names registered type "
              + name
              + ", which is not registered with this serializer");
    }
    BinaryReader body = new BinaryReader(in.readBytes(), this);
    Object v = r.codec().read(body);
    body.expectEnd();
    return v;
  }
}
