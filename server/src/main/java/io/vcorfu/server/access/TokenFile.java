package io.vcorfu.server.access;

import io.vcorfu.protocol.netty.BearerTokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The bearer tokens a node accepts ({@code vcorfu server --tokens FILE}), read again when the file
 * changes (see {@link FollowedFile}). The file holds one line per token, {@code NAME SHA256}: the
 * name the token authenticates as (its principal is {@code token:NAME}, which no certificate
 * subject can be, since a subject is always {@code KEY=VALUE,...}) and the SHA-256 of the token in
 * hex; {@code #} starts a comment. Only hashes are stored, so the file reveals no token: {@code
 * vcorfu token create} prints a new token once and writes its hash.
 *
 * <p>A token is 32 random bytes (base64url), so looking it up by its hash reveals nothing through
 * timing. Thread-safe.
 */
public final class TokenFile implements BearerTokens {
  /** The prefix of every principal a token names. */
  public static final String PRINCIPAL_PREFIX = "token:";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");
  private static final Pattern HASH = Pattern.compile("[0-9a-f]{64}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final FollowedFile<Map<String, String>> followed;

  private TokenFile(FollowedFile<Map<String, String>> followed) {
    this.followed = followed;
  }

  /**
   * The tokens of {@code file}, followed from now on.
   *
   * @throws IllegalArgumentException when the file is missing or not valid, saying what to do
   */
  public static TokenFile open(Path file) {
    Objects.requireNonNull(file, "file");
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          "the token file "
              + file
              + " does not exist; create it with `vcorfu token create --tokens "
              + file
              + " --name NAME`");
    }
    try {
      return new TokenFile(new FollowedFile<>(file, "bearer tokens", TokenFile::byHash));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the token file " + file + ": " + e.getMessage());
    }
  }

  @Override
  public String principalOf(String token) {
    String name = followed.get().get(hash(token));
    return name == null ? null : PRINCIPAL_PREFIX + name;
  }

  /**
   * Makes a new token named {@code name}, writes its hash to {@code file} (created readable by its
   * owner only when missing) and returns the token, which is kept nowhere else.
   *
   * @throws IllegalArgumentException when the name is not valid or already has a token
   */
  public static String create(Path file, String name) throws IOException {
    checkName(name);
    Map<String, String> names = byName(file);
    if (names.containsKey(name)) {
      throw new IllegalArgumentException(
          "the name "
              + name
              + " already has a token in "
              + file
              + "; revoke it first (vcorfu token revoke) or choose another name");
    }
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    names.put(name, hash(token));
    write(file, names);
    return token;
  }

  /** Removes {@code name}'s token from {@code file}; false when it had none. */
  public static boolean revoke(Path file, String name) throws IOException {
    Map<String, String> names = byName(file);
    if (names.remove(name) == null) {
      return false;
    }
    write(file, names);
    return true;
  }

  /** The names that have a token in {@code file}, in file order; none when it does not exist. */
  public static List<String> names(Path file) {
    return List.copyOf(byName(file).keySet());
  }

  private static void write(Path file, Map<String, String> names) throws IOException {
    StringBuilder text =
        new StringBuilder("# vcorfu bearer tokens: NAME SHA256-of-token (vcorfu token create)\n");
    names.forEach((n, h) -> text.append(n).append(' ').append(h).append('\n'));
    boolean fresh = !Files.exists(file);
    FollowedFile.replace(file, text.toString().getBytes(StandardCharsets.UTF_8));
    if (fresh) {
      try {
        Files.setPosixFilePermissions(
            file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // Not a POSIX file system: its own defaults apply.
      }
    }
  }

  /** Name to hash, in file order; empty when the file does not exist. */
  private static Map<String, String> byName(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return new LinkedHashMap<>();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the token file " + file, e);
    }
    Map<String, String> names = new LinkedHashMap<>();
    int n = 0;
    for (String raw : lines) {
      n++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+");
      if (parts.length != 2
          || !NAME.matcher(parts[0]).matches()
          || !HASH.matcher(parts[1]).matches()) {
        throw new IllegalArgumentException(
            "line "
                + n
                + " is not NAME SHA256 (a name of letters, digits and ._@-, then 64 lowercase hex"
                + " digits): write the file with vcorfu token create");
      }
      if (names.put(parts[0], parts[1]) != null) {
        throw new IllegalArgumentException("line " + n + " names " + parts[0] + " a second time");
      }
    }
    return names;
  }

  /** Hash to name. */
  private static Map<String, String> byHash(Path file) {
    Map<String, String> hashes = new LinkedHashMap<>();
    byName(file).forEach((n, h) -> hashes.put(h, n));
    return hashes;
  }

  private static void checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "a token's name is 1 to 64 letters, digits and ._@-, not '" + name + "'");
    }
  }

  static String hash(String token) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }
}
