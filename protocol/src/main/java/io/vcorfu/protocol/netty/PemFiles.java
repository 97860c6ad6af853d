package io.vcorfu.protocol.netty;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM files: certificates ({@code BEGIN CERTIFICATE}) and unencrypted PKCS#8 private keys
 * ({@code BEGIN PRIVATE KEY}: RSA, EC, Ed25519 or Ed448). Every failure is an {@link
 * IllegalArgumentException} whose message names the file, what is wrong with it and what to do.
 */
final class PemFiles {
  private static final Pattern BLOCK =
      Pattern.compile(
          "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----", Pattern.DOTALL);
  private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448");

  private PemFiles() {}

  /** The certificates in {@code file}, in order; at least one. */
  static List<X509Certificate> certificates(Path file, String what) {
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      for (Block b : blocks(file, what)) {
        if (b.type.equals("CERTIFICATE")) {
          out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(b.der)));
        }
      }
    } catch (CertificateException e) {
      throw new IllegalArgumentException(
          what + " " + file + " holds a certificate that does not parse: " + e.getMessage(), e);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          what
              + " "
              + file
              + " holds no certificate (no -----BEGIN CERTIFICATE----- block): give a PEM"
              + " certificate file");
    }
    return out;
  }

  /** The private key in {@code file}. */
  static PrivateKey privateKey(Path file, String what) {
    for (Block b : blocks(file, what)) {
      switch (b.type) {
        case "PRIVATE KEY" -> {
          for (String algorithm : KEY_ALGORITHMS) {
            try {
              return KeyFactory.getInstance(algorithm)
                  .generatePrivate(new PKCS8EncodedKeySpec(b.der));
            } catch (GeneralSecurityException notThisOne) {
              // try the next algorithm
            }
          }
          throw new IllegalArgumentException(
              what + " " + file + " holds a PKCS#8 key of no algorithm this JVM reads");
        }
        case "RSA PRIVATE KEY", "EC PRIVATE KEY" ->
            throw new IllegalArgumentException(
                what
                    + " "
                    + file
                    + " is a "
                    + b.type
                    + " (PKCS#1/SEC1): convert it to PKCS#8 with `openssl pkcs8 -topk8 -nocrypt"
                    + " -in "
                    + file
                    + " -out key.pem`");
        case "ENCRYPTED PRIVATE KEY" ->
            throw new IllegalArgumentException(
                what
                    + " "
                    + file
                    + " is encrypted: give an unencrypted PKCS#8 key (`openssl pkcs8 -topk8"
                    + " -nocrypt`) readable only by the node's user");
        default -> {
          // not a key: look further
        }
      }
    }
    throw new IllegalArgumentException(
        what
            + " "
            + file
            + " holds no private key (no -----BEGIN PRIVATE KEY----- block): give the PKCS#8 PEM"
            + " key of the certificate");
  }

  private record Block(String type, byte[] der) {}

  private static List<Block> blocks(Path file, String what) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.ISO_8859_1);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(what + " " + file + " does not exist", e);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read " + what + " " + file + ": " + e.getMessage(), e);
    }
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      try {
        out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            what + " " + file + " has a PEM block that is not base64: " + e.getMessage(), e);
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          what + " " + file + " is not a PEM file (no -----BEGIN ...----- block)");
    }
    return out;
  }
}
