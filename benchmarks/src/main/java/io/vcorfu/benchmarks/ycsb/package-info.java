/**
 * YCSB bindings and the harness that runs the standard workloads against vcorfu and, for
 * like-for-like comparison, against Redis and etcd, reporting throughput and latency per run.
 */
package io.vcorfu.benchmarks.ycsb;
