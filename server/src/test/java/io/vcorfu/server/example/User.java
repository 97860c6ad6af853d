package io.vcorfu.server.example;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;
import java.time.Instant;

/** The README's example class (the paper's Figure 5). */
public class User {
  String name;
  String password;
  Instant lastLogin;
  Instant lastLogout;

  @Accessor
  public String getName() {
    return name;
  }

  @Accessor
  public Instant getLastLogout() {
    return lastLogout;
  }

  @MutatorAccessor
  public boolean login(String pass, Instant time) {
    if (password.equals(pass)) {
      lastLogin = time;
      return true;
    }
    return false;
  }

  @Mutator
  public void logout(Instant time) {
    lastLogout = time;
  }

  @Mutator
  public void register(String name, String password) {
    this.name = name;
    this.password = password;
  }
}
