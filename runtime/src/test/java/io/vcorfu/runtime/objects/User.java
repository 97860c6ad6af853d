package io.vcorfu.runtime.objects;

import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;
import java.time.Instant;

/**
 * The User class of the vCorfu paper's Figure 5, with its typos fixed and java.time.Instant for
 * DateTime. The figure gives no way to set the name and password; {@link #register} is the one
 * addition.
 */
public class User {
  String name;
  String password;
  Instant lastLogin;
  Instant lastLogout;

  public String getName() {
    return name;
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
