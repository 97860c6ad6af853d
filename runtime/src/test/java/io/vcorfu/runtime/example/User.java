package io.vcorfu.runtime.example;

import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import io.vcorfu.runtime.annotations.MutatorAccessor;
import java.time.Instant;

/**
 * The User class of the vCorfu paper's Figure 5 and the README's example, with its typos fixed and
 * java.time.Instant for DateTime. The figure gives no way to set the name and password; {@link
 * #register} is the one addition, and the accessors of the login and logout times.
 */
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
  public Instant getLastLogin() {
    return lastLogin;
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
