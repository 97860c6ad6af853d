/**
 * Byte Buddy proxies of replicated classes: {@link io.vcorfu.runtime.proxy.ProxyFactory} generates
 * one subclass per class whose annotated methods go to the view's {@link
 * io.vcorfu.runtime.proxy.ObjectHandle}; {@link io.vcorfu.runtime.proxy.ClassModel} is what the
 * runtime knows about a class's annotated methods. Public only because generated proxy classes and
 * the runtime's sibling packages must reach it; not an API.
 */
package io.vcorfu.runtime.proxy;
