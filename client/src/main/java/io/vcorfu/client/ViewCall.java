package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import java.util.List;

/**
 * One method call on a remotely hosted object (a remote view): the object of class {@code type} on
 * {@code stream}, the method's stable signature (e.g. {@code "login(java.lang.String)"}), each
 * argument encoded alone by the object's serializer, the version to run on (-2 for the latest
 * state, else a global address) and SMR-entry-encoded updates applied on top of that version first.
 */
public record ViewCall(
    StreamId stream,
    String type,
    String method,
    List<byte[]> args,
    long asOf,
    List<byte[]> pending) {

  public ViewCall {
    args = List.copyOf(args);
    pending = List.copyOf(pending);
  }
}
