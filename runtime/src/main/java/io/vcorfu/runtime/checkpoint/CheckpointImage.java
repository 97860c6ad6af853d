package io.vcorfu.runtime.checkpoint;

import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.serialization.Serializer;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of one object's state, each value encoded alone by the object's serializer: every
 * non-static, non-transient, non-synthetic field declared by the object's class and its
 * superclasses (below {@link Object}), keyed {@code DeclaringClass.fieldName}. Immutable; each
 * restore decodes fresh values, so restored instances never share mutable field values.
 *
 * <p>An object of a {@link VersionCapturing} class is imaged as one value instead, under the key
 * {@value #VERSION_KEY} (which no field key can be): {@link VersionCapturing#toCheckpoint} of a
 * captured version, restored through {@link VersionCapturing#fromCheckpoint} and {@link
 * VersionCapturing#restoreVersion}. Its fields may then hold persistent structures the serializer
 * does not know.
 */
public final class CheckpointImage {
  static final String VERSION_KEY = "@version";

  private final String typeName;
  private final Map<String, byte[]> values;

  CheckpointImage(String typeName, Map<String, byte[]> values) {
    this.typeName = typeName;
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /** The class name of the object the image was taken from. */
  public String typeName() {
    return typeName;
  }

  Map<String, byte[]> values() {
    return values;
  }

  /**
   * Captures the fields of {@code state}, an instance of {@code type} (or of its proxy).
   *
   * @throws io.vcorfu.runtime.serialization.UnsupportedTypeException if a field's value cannot be
   *     encoded by {@code serializer}
   */
  static CheckpointImage capture(Class<?> type, Object state, Serializer serializer) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    for (Field f : fieldsOf(type)) {
      serializer.permit(f.getGenericType());
      Object value;
      try {
        value = f.get(state);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("cannot read field " + key(f) + ": " + e.getMessage(), e);
      }
      out.put(key(f), serializer.serialize(value));
    }
    return new CheckpointImage(type.getName(), out);
  }

  /**
   * Images a captured {@code version} of {@code state}, an instance of the {@link VersionCapturing}
   * class {@code type} (or of its proxy). Needs no lock: reads only the immutable version.
   *
   * @throws io.vcorfu.runtime.serialization.UnsupportedTypeException if the checkpoint form cannot
   *     be encoded by {@code serializer}
   */
  @SuppressWarnings("unchecked")
  static CheckpointImage ofVersion(
      Class<?> type, Object state, Object version, Serializer serializer) {
    Object form = ((VersionCapturing<Object>) state).toCheckpoint(version);
    return new CheckpointImage(type.getName(), Map.of(VERSION_KEY, serializer.serialize(form)));
  }

  /**
   * Sets the fields of {@code state} (a new instance in the class's initial state) from the image.
   */
  @SuppressWarnings("unchecked")
  public void restoreInto(Object state, Serializer serializer) {
    byte[] version = values.get(VERSION_KEY);
    if (version != null) {
      if (!(state instanceof VersionCapturing<?>)) {
        throw new IllegalArgumentException(
            "the checkpoint holds a version of "
                + typeName
                + ", but a "
                + state.getClass().getName()
                + " does not implement VersionCapturing");
      }
      VersionCapturing<Object> v = (VersionCapturing<Object>) state;
      v.restoreVersion(v.fromCheckpoint(serializer.deserialize(version)));
      return;
    }
    Class<?> type = state.getClass();
    while (type != null && !type.getName().equals(typeName)) {
      type = type.getSuperclass();
    }
    if (type == null) {
      throw new IllegalArgumentException(
          "a checkpoint of "
              + typeName
              + " cannot be restored into a "
              + state.getClass().getName());
    }
    for (Field f : fieldsOf(type)) {
      byte[] bytes = values.get(key(f));
      if (bytes == null) {
        continue;
      }
      serializer.permit(f.getGenericType());
      try {
        f.set(state, serializer.deserialize(bytes));
      } catch (IllegalAccessException | IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "cannot restore field " + key(f) + " from the checkpoint: " + e.getMessage(), e);
      }
    }
  }

  private static String key(Field f) {
    return f.getDeclaringClass().getName() + "." + f.getName();
  }

  /** The checkpointed fields of {@code type}, superclass fields first, made accessible. */
  static List<Field> fieldsOf(Class<?> type) {
    List<Class<?>> chain = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      chain.add(0, c);
    }
    List<Field> out = new ArrayList<>();
    for (Class<?> c : chain) {
      for (Field f : c.getDeclaredFields()) {
        int mod = f.getModifiers();
        if (Modifier.isStatic(mod) || Modifier.isTransient(mod) || f.isSynthetic()) {
          continue;
        }
        f.setAccessible(true);
        out.add(f);
      }
    }
    return out;
  }
}
