/**
 * The benchmark harness behind {@code vcorfu bench}: closed-loop drivers for appends, stream reads,
 * token issuance, replicated objects and collections against in-process or remote clusters, with
 * latency recording, load windows, key generators (uniform and Zipfian), progress lines, and result
 * summaries as text or JSON.
 */
package io.vcorfu.benchmarks;
