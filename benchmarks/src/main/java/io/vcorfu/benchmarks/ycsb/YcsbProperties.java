package io.vcorfu.benchmarks.ycsb;

import java.util.Properties;

/** Reads typed binding properties with errors that name the property. */
final class YcsbProperties {
  private YcsbProperties() {}

  static int intProperty(Properties props, String name, int defaultValue) {
    long value = longProperty(props, name, defaultValue);
    if (value != (int) value) {
      throw new IllegalArgumentException(
          "The property " + name + " must be an integer, not '" + props.getProperty(name) + "'.");
    }
    return (int) value;
  }

  static long longProperty(Properties props, String name, long defaultValue) {
    String value = props.getProperty(name);
    if (value == null || value.isBlank()) {
      return defaultValue;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "The property " + name + " must be an integer, not '" + value + "'.", e);
    }
  }
}
