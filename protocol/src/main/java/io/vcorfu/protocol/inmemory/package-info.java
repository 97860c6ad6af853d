/**
 * A transport inside one JVM for tests: every message is still serialized and parsed, and fault
 * rules can drop, delay, reorder or partition messages while a test runs.
 */
package io.vcorfu.protocol.inmemory;
