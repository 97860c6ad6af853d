package io.vcorfu.protocol;

/**
 * The node does not know who is asking: a TLS connection that presented no client certificate sent
 * a request before a bearer token, or the token it gave is not one the node accepts (mistyped,
 * revoked, or for another cluster). Not retried: the same credentials fail the same way until
 * someone changes them. Nothing of the request was done.
 */
public final class UnauthenticatedException extends VCorfuException {
  public UnauthenticatedException(String message) {
    super(message);
  }
}
