package io.vcorfu.runtime.proxy;

import io.vcorfu.runtime.smr.UpcallRunner;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.Callable;
import net.bytebuddy.implementation.bind.annotation.AllArguments;
import net.bytebuddy.implementation.bind.annotation.Origin;
import net.bytebuddy.implementation.bind.annotation.RuntimeType;
import net.bytebuddy.implementation.bind.annotation.SuperCall;
import net.bytebuddy.implementation.bind.annotation.This;

/**
 * The target every annotated method of a generated proxy class delegates to. Not for application
 * use.
 */
public final class Interceptor {
  private final Map<Method, MethodModel> methods;

  Interceptor(Map<Method, MethodModel> methods) {
    this.methods = methods;
  }

  @RuntimeType
  public Object intercept(
      @This Object self,
      @Origin Method method,
      @AllArguments Object[] args,
      @SuperCall(serializableProxy = false) Callable<Object> body)
      throws Exception {
    ObjectHandle handle = ((SmrProxy) self).getVcorfuHandle$();
    if (handle == null || UpcallRunner.inUpcall(self)) {
      return body.call();
    }
    MethodModel model = methods.get(method);
    if (model == null) {
      return body.call();
    }
    return handle.invoke(self, model, args, body);
  }
}
