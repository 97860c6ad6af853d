package io.vcorfu.runtime.proxy;

/**
 * Implemented by every generated proxy class: the proxy instance carries the handle of the view it
 * belongs to. Not for application use.
 */
// The trailing $ keeps these names clear of any method of the proxied class.
@SuppressWarnings("checkstyle:MethodName")
public interface SmrProxy {
  ObjectHandle getVcorfuHandle$();

  void setVcorfuHandle$(ObjectHandle handle);
}
