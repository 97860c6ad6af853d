package io.vcorfu.client;

import io.vcorfu.protocol.StreamId;
import java.util.List;

/**
 * One method call on a remotely hosted object (a remote view): the object of class {@code type} on
 * {@code stream}, the method's stable signature (e.g. {@code "login(java.lang.String)"}), each
 * argument encoded alone by the object's serializer, the version to run on (-2 for the latest
 * state, else a global address) and SMR-entry-encoded updates applied on top of that version first.
 *
 * <p>{@code bundle} is the version of the class to run ({@link ClassBundle}): the call names it by
 * digest, and the log sends the classes when the host asks for them. Null: no bundle (a class
 * without a readable code source, or one of vcorfu's), the host runs the class its class path has.
 */
public record ViewCall(
    StreamId stream,
    String type,
    String method,
    List<byte[]> args,
    long asOf,
    List<byte[]> pending,
    ClassBundle bundle) {

  public ViewCall {
    args = List.copyOf(args);
    pending = List.copyOf(pending);
  }

  /** A call without a bundle: the host runs the class its class path has. */
  public ViewCall(
      StreamId stream,
      String type,
      String method,
      List<byte[]> args,
      long asOf,
      List<byte[]> pending) {
    this(stream, type, method, args, asOf, pending, null);
  }
}
