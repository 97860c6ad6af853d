package io.vcorfu.server.example;

import io.vcorfu.runtime.VCorfuRuntime;
import io.vcorfu.runtime.example.User;

/** A separate client process: registers a user through its own runtime, then prints "done". */
public final class RegisterUser {
  private RegisterUser() {}

  public static void main(String[] args) {
    try (VCorfuRuntime rt = VCorfuRuntime.connect(args[0])) {
      rt.objects().open(args[1], User.class).register(args[2], args[3]);
    }
    System.out.println("done");
  }
}
