/**
 * Tails: what a client knows of the stream and global tails ({@link
 * io.vcorfu.client.tails.TailKnowledge}), tail requests shared by concurrent callers ({@link
 * io.vcorfu.client.tails.TailBatcher}) and the read lease that answers them from memory ({@link
 * io.vcorfu.client.tails.ReadLease}).
 */
package io.vcorfu.client.tails;
