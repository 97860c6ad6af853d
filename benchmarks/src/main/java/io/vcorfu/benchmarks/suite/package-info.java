/**
 * Benchmark orchestration ({@code vcorfu bench suite ...}): runs that start vcorfu nodes, a
 * ZooKeeper and peer servers as processes of their own (each ended by its pid, also on failure),
 * run the bench modes against them and write markdown tables of the results.
 */
package io.vcorfu.benchmarks.suite;
