package io.vcorfu.server.cli;

/**
 * What a command was asked about does not exist (a map, a key, a stream never written): it exits
 * with {@link VcorfuCli#NOT_FOUND}, so that scripts tell it from a failure.
 */
final class NotFoundException extends RuntimeException {
  NotFoundException(String message) {
    super(message);
  }
}
