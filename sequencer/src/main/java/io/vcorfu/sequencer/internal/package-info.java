/**
 * The sequencer's state: per-stream tails and the bounded cache of the last write address of each
 * key that conditional issuance checks against. Not an API: used only by the sequencer.
 */
package io.vcorfu.sequencer.internal;
