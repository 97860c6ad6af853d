package io.vcorfu.protocol.netty;

import io.vcorfu.protocol.TlsOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * One reading of a party's TLS files, checked: the trusted authorities, and (when given) a
 * certificate chain that is valid now, whose key is the one in the key file. Immutable.
 *
 * @param generation which reading this is (1 for the first), to tell the material of a handshake
 *     that straddles a reload
 * @param stamp when and how large each file was, and which file it was, when read ({@link
 *     #stampOf})
 */
record TlsMaterial(
    long generation,
    List<String> stamp,
    X509ExtendedTrustManager trust,
    PrivateKey key,
    X509Certificate[] chain) {

  /**
   * Reads and checks the files {@code options} names.
   *
   * @throws IllegalArgumentException naming the file and what to do when a file is missing,
   *     unreadable or not PEM, the key does not belong to the certificate, or the certificate is
   *     not valid now
   */
  static TlsMaterial load(TlsOptions options, long generation) {
    List<String> stamp = stampOf(options);
    List<X509Certificate> cas = PemFiles.certificates(options.ca(), "the CA file (--tls-ca)");
    X509ExtendedTrustManager trust = trustManager(cas, options.ca());
    if (!options.hasIdentity()) {
      return new TlsMaterial(generation, stamp, trust, null, null);
    }
    List<X509Certificate> chain =
        PemFiles.certificates(options.cert(), "the certificate file (--tls-cert)");
    PrivateKey key = PemFiles.privateKey(options.key(), "the key file (--tls-key)");
    X509Certificate own = chain.get(0);
    if (!matches(key, own)) {
      throw new IllegalArgumentException(
          "the key file (--tls-key) "
              + options.key()
              + " is not the key of the certificate in "
              + options.cert()
              + " ("
              + own.getSubjectX500Principal().getName()
              + "): give the key the certificate was issued for");
    }
    try {
      own.checkValidity();
    } catch (CertificateExpiredException e) {
      throw new IllegalArgumentException(
          "the certificate in "
              + options.cert()
              + " expired on "
              + own.getNotAfter().toInstant()
              + ": issue a new one",
          e);
    } catch (CertificateNotYetValidException e) {
      throw new IllegalArgumentException(
          "the certificate in "
              + options.cert()
              + " is valid only from "
              + own.getNotBefore().toInstant()
              + ": check the clocks, or issue one valid now",
          e);
    }
    return new TlsMaterial(generation, stamp, trust, key, chain.toArray(new X509Certificate[0]));
  }

  /** The subject of this party's certificate, or null without one. */
  String subject() {
    return chain == null ? null : chain[0].getSubjectX500Principal().getName();
  }

  /**
   * The modification time, size and file key (device and inode) of each file {@code options} names
   * ("missing" for one that is not there): a different stamp means the files changed since they
   * were read.
   */
  static List<String> stampOf(TlsOptions options) {
    List<String> out = new ArrayList<>(3);
    for (Path p : new Path[] {options.ca(), options.cert(), options.key()}) {
      if (p == null) {
        continue;
      }
      try {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
        // The file key (device and inode) tells a file renamed over the old one even when the
        // clock's tick and the size are the same.
        out.add(a.lastModifiedTime() + "/" + a.size() + "/" + a.fileKey());
      } catch (IOException e) {
        out.add("missing");
      }
    }
    return List.copyOf(out);
  }

  private static X509ExtendedTrustManager trustManager(List<X509Certificate> cas, Path file) {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (X509Certificate ca : cas) {
        store.setCertificateEntry("ca-" + i++, ca);
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      for (TrustManager tm : factory.getTrustManagers()) {
        if (tm instanceof X509ExtendedTrustManager x) {
          return x;
        }
      }
      throw new IllegalStateException("this JVM has no X.509 trust manager");
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException(
          "the CA file (--tls-ca) " + file + " cannot be used: " + e.getMessage(), e);
    }
  }

  /** True when {@code key} signs what {@code cert}'s public key verifies. */
  private static boolean matches(PrivateKey key, X509Certificate cert) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> key.getAlgorithm(); // Ed25519, Ed448
        };
    try {
      byte[] probe = "vcorfu key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert.getPublicKey());
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      // A key of another algorithm than the certificate's, for one.
      return false;
    }
  }
}
