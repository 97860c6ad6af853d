/**
 * The sequencer role: issues global and per-stream addresses (tokens) with backpointers, performs
 * conditional issuance for optimistic transactions, reports stream tails, and grants the read
 * leases that let clients read their own writes without asking for a tail.
 */
package io.vcorfu.sequencer;
