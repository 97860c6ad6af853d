package io.vcorfu.protocol;

import com.google.protobuf.ByteString;
import io.vcorfu.protocol.proto.BadRequest;
import io.vcorfu.protocol.proto.ErrorMsg;
import io.vcorfu.protocol.proto.NotServing;
import io.vcorfu.protocol.proto.Overwritten;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.proto.Sealed;
import io.vcorfu.protocol.proto.ServerError;
import io.vcorfu.protocol.proto.TooLarge;
import io.vcorfu.protocol.proto.TransactionAborted;
import io.vcorfu.protocol.proto.Trimmed;
import io.vcorfu.protocol.proto.UnknownStream;
import io.vcorfu.protocol.proto.WrongEpoch;

/** Maps typed exceptions to wire errors and back. */
public final class Errors {
  private Errors() {}

  /** The wire form of {@code error}; anything not a {@link VCorfuException} becomes ServerError. */
  public static ErrorMsg toMsg(Throwable error) {
    ErrorMsg.Builder b = ErrorMsg.newBuilder();
    String message =
        error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage();
    b.setMessage(message);
    if (error instanceof WrongEpochException e) {
      b.setWrongEpoch(WrongEpoch.newBuilder().setCurrentEpoch(e.currentEpoch()));
    } else if (error instanceof OverwrittenException e) {
      Overwritten.Builder o =
          Overwritten.newBuilder()
              .setAddress(e.address())
              .setHoldsHole(e.holdsHole())
              .setHolderGlobalAddress(e.holderGlobalAddress());
      if (e.stream() != null) {
        o.setStream(e.stream().toMsg());
      }
      b.setOverwritten(o);
    } else if (error instanceof TrimmedException e) {
      Trimmed.Builder t = Trimmed.newBuilder().setTrimMark(e.trimMark());
      if (e.stream() != null) {
        t.setStream(e.stream().toMsg());
      }
      b.setTrimmed(t);
    } else if (error instanceof TooLargeException e) {
      b.setTooLarge(TooLarge.newBuilder().setSize(e.size()).setLimit(e.limit()));
    } else if (error instanceof UnknownStreamException e) {
      b.setUnknownStream(UnknownStream.newBuilder().setStream(e.stream().toMsg()));
    } else if (error instanceof BadRequestException) {
      b.setBadRequest(BadRequest.getDefaultInstance());
    } else if (error instanceof NotServingException e) {
      b.setNotServing(NotServing.newBuilder().setRole(e.role()));
    } else if (error instanceof TokenRefusedException e) {
      TransactionAborted.Builder t =
          TransactionAborted.newBuilder()
              .setConflictKey(ByteString.copyFrom(e.conflictKey()))
              .setConflictAddress(e.conflictAddress())
              .setCause(
                  switch (e.refusal()) {
                    case SNAPSHOT_TOO_OLD -> TransactionAborted.Cause.SNAPSHOT_TOO_OLD;
                    case SEQUENCER_RESTARTED -> TransactionAborted.Cause.SEQUENCER_RESTARTED;
                    case CONFLICT -> TransactionAborted.Cause.CONFLICT;
                  });
      if (e.stream() != null) {
        t.setStream(e.stream().toMsg());
      }
      b.setTxAborted(t);
    } else if (error instanceof DiskFullException e) {
      b.setDiskFull(
          io.vcorfu.protocol.proto.DiskFull.newBuilder()
              .setFreeBytes(e.freeBytes())
              .setThresholdBytes(e.thresholdBytes())
              .setNode(e.node()));
    } else if (error instanceof SealedException e) {
      b.setSealed(Sealed.newBuilder().setSealedEpoch(e.sealedEpoch()));
    } else if (error instanceof PermissionDeniedException e) {
      io.vcorfu.protocol.proto.PermissionDenied.Builder d =
          io.vcorfu.protocol.proto.PermissionDenied.newBuilder()
              .setPermission(e.permission())
              .setPrincipal(e.principal());
      if (e.stream() != null) {
        d.setStream(e.stream().toMsg());
      }
      b.setPermissionDenied(d);
    } else if (error instanceof TlsException) {
      b.setTlsRequired(io.vcorfu.protocol.proto.TlsRequired.getDefaultInstance());
    } else if (error instanceof UnauthenticatedException) {
      b.setUnauthenticated(io.vcorfu.protocol.proto.Unauthenticated.getDefaultInstance());
    } else if (error instanceof ClassesNeededException e) {
      b.setClassesNeeded(
          io.vcorfu.protocol.proto.ClassesNeeded.newBuilder()
              .setType(e.type())
              .setDigest(ByteString.copyFrom(e.digest())));
    } else if (error instanceof DamagedEntryException e) {
      io.vcorfu.protocol.proto.Damaged.Builder d =
          io.vcorfu.protocol.proto.Damaged.newBuilder().setAddress(e.address());
      if (e.stream() != null) {
        d.setStream(e.stream().toMsg());
      }
      b.setDamaged(d);
    } else if (error instanceof ClassesRefusedException e) {
      b.setClassesRefused(io.vcorfu.protocol.proto.ClassesRefused.newBuilder().setType(e.type()));
    } else {
      b.setServerError(ServerError.getDefaultInstance());
    }
    return b.build();
  }

  /** A response carrying {@code error}. */
  public static Response toResponse(Throwable error) {
    return Response.newBuilder().setError(toMsg(error)).build();
  }

  /** The typed exception for a wire error. */
  public static VCorfuException toException(ErrorMsg msg) {
    String m = msg.getMessage();
    return switch (msg.getErrorCase()) {
      case WRONG_EPOCH -> new WrongEpochException(-1, msg.getWrongEpoch().getCurrentEpoch());
      case OVERWRITTEN -> {
        Overwritten o = msg.getOverwritten();
        yield new OverwrittenException(
            o.getAddress(),
            o.hasStream() ? StreamId.fromMsg(o.getStream()) : null,
            o.getHoldsHole(),
            o.getHolderGlobalAddress());
      }
      case TRIMMED -> {
        Trimmed t = msg.getTrimmed();
        yield new TrimmedException(
            t.getTrimMark(), t.hasStream() ? StreamId.fromMsg(t.getStream()) : null);
      }
      case TOO_LARGE ->
          new TooLargeException(msg.getTooLarge().getSize(), msg.getTooLarge().getLimit());
      case UNKNOWN_STREAM ->
          new UnknownStreamException(StreamId.fromMsg(msg.getUnknownStream().getStream()));
      case BAD_REQUEST -> new BadRequestException(m);
      case NOT_SERVING ->
          m.isEmpty()
              ? new NotServingException(msg.getNotServing().getRole())
              : new NotServingException(msg.getNotServing().getRole(), m);
      case TX_ABORTED -> {
        TransactionAborted t = msg.getTxAborted();
        yield new TokenRefusedException(
            t.hasStream() ? StreamId.fromMsg(t.getStream()) : null,
            t.getConflictKey().toByteArray(),
            t.getConflictAddress(),
            switch (t.getCause()) {
              case SNAPSHOT_TOO_OLD -> TokenRefusedException.Cause.SNAPSHOT_TOO_OLD;
              case SEQUENCER_RESTARTED -> TokenRefusedException.Cause.SEQUENCER_RESTARTED;
              default -> TokenRefusedException.Cause.CONFLICT;
            });
      }
      case SEALED -> new SealedException(msg.getSealed().getSealedEpoch());
      case DISK_FULL ->
          new DiskFullException(
              msg.getDiskFull().getNode(),
              msg.getDiskFull().getFreeBytes(),
              msg.getDiskFull().getThresholdBytes());
      case PERMISSION_DENIED -> {
        io.vcorfu.protocol.proto.PermissionDenied d = msg.getPermissionDenied();
        yield new PermissionDeniedException(
            d.getPermission(),
            d.hasStream() ? StreamId.fromMsg(d.getStream()) : null,
            d.getPrincipal());
      }
      case TLS_REQUIRED -> new TlsException(m.isEmpty() ? "the node requires TLS" : m, null);
      case UNAUTHENTICATED ->
          new UnauthenticatedException(m.isEmpty() ? "the node does not know this client" : m);
      case CLASSES_NEEDED ->
          new ClassesNeededException(
              msg.getClassesNeeded().getType(), msg.getClassesNeeded().getDigest().toByteArray());
      case CLASSES_REFUSED -> new ClassesRefusedException(msg.getClassesRefused().getType(), m);
      case DAMAGED ->
          new DamagedEntryException(
              msg.getDamaged().hasStream() ? StreamId.fromMsg(msg.getDamaged().getStream()) : null,
              msg.getDamaged().getAddress());
      case SERVER_ERROR, ERROR_NOT_SET ->
          new ServerErrorException(m.isEmpty() ? "server error" : m);
    };
  }

  /** Returns {@code response} if it is not an error, else throws its typed exception. */
  public static Response check(Response response) {
    if (response.getPayloadCase() == Response.PayloadCase.ERROR) {
      throw toException(response.getError());
    }
    return response;
  }
}
