/**
 * JMH microbenchmarks of vcorfu's hot paths, one class per path: the wire codec ({@link
 * WireCodecBench}), the sequencer's issuance and conditional check ({@link SequencerBench}), the
 * storage engine's appends and group commit ({@link StorageBench}), building a multi-entry chain
 * write ({@link BatchBuildBench}) and the SMR engine's apply of an update ({@link SmrApplyBench}).
 *
 * <p>Run all of them with {@code java -jar microbench/target/vcorfu-jmh.jar -f 1}, or one with a
 * name pattern: {@code java -jar microbench/target/vcorfu-jmh.jar -f 1 SequencerBench}.
 */
package io.vcorfu.microbench;
