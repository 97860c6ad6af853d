/** Small replicated object classes driven by {@code vcorfu bench objects}. */
package io.vcorfu.benchmarks.objects;
