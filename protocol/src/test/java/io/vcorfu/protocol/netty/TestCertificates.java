package io.vcorfu.protocol.netty;

import io.vcorfu.protocol.TlsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificate authorities and certificates for TLS tests, made in the test (EC P-256 keys), and
 * written as the PEM files a node and a client are given.
 */
public final class TestCertificates {
  private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());

  private TestCertificates() {}

  /** A certificate and its private key. */
  public record Issued(X509Certificate cert, PrivateKey key) {
    /** The certificate's subject, as a connection's principal shows it. */
    public String subject() {
      return cert.getSubjectX500Principal().getName();
    }

    /** Writes the certificate as PEM to {@code file} (replacing it atomically); returns it. */
    public Path writeCert(Path file) {
      try {
        return write(file, pem("CERTIFICATE", cert.getEncoded()));
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    /** Writes the key as PKCS#8 PEM to {@code file} (replacing it atomically); returns it. */
    public Path writeKey(Path file) {
      return write(file, pem("PRIVATE KEY", key.getEncoded()));
    }
  }

  /** A certificate authority that issues certificates. */
  public static final class Authority {
    private final Issued self;

    private Authority(Issued self) {
      this.self = self;
    }

    public Issued self() {
      return self;
    }

    /** A certificate for {@code commonName}, valid from an hour ago for a day. */
    public Issued issue(String commonName) {
      Instant now = Instant.now();
      return issue(commonName, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    }

    /** A certificate for {@code commonName}, valid from {@code notBefore} to {@code notAfter}. */
    public Issued issue(String commonName, Instant notBefore, Instant notAfter) {
      return issue(commonName, notBefore, notAfter, LOOPBACK);
    }

    /**
     * A certificate for {@code commonName} naming only the hosts {@code names} (DNS names, or IPv4
     * addresses), valid from an hour ago for a day.
     */
    public Issued issueFor(String commonName, GeneralName... names) {
      Instant now = Instant.now();
      return issue(commonName, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), names);
    }

    private Issued issue(
        String commonName, Instant notBefore, Instant notAfter, GeneralName[] names) {
      KeyPair pair = newKeyPair();
      return sign(
          new X500Name("CN=" + commonName + ",O=vcorfu test"),
          pair,
          self,
          notBefore,
          notAfter,
          false,
          names);
    }

    /**
     * Writes this authority's certificate to {@code dir/ca.pem} and {@code id} to {@code
     * dir/NAME.pem} and {@code dir/NAME.key}: the options of a party with that identity.
     */
    public TlsOptions write(Path dir, String name, Issued id) {
      Path ca = self.writeCert(dir.resolve("ca.pem"));
      return TlsOptions.trusting(ca)
          .withIdentity(
              id.writeCert(dir.resolve(name + ".pem")), id.writeKey(dir.resolve(name + ".key")));
    }

    /**
     * A new identity {@code name} issued by this authority, written under {@code parent/NAME/} (see
     * {@link #write}).
     */
    public TlsOptions identityIn(Path parent, String name) throws java.io.IOException {
      return write(java.nio.file.Files.createDirectories(parent.resolve(name)), name, issue(name));
    }
  }

  /** The hosts a test certificate names unless told otherwise: localhost and 127.0.0.1. */
  private static final GeneralName[] LOOPBACK = {
    new GeneralName(GeneralName.dNSName, "localhost"),
    new GeneralName(GeneralName.iPAddress, "127.0.0.1")
  };

  /** A new self-signed certificate authority named {@code name}. */
  public static Authority authority(String name) {
    KeyPair pair = newKeyPair();
    Instant now = Instant.now();
    return new Authority(
        sign(
            new X500Name("CN=" + name + ",O=vcorfu test"),
            pair,
            null,
            now.minus(Duration.ofHours(1)),
            now.plus(Duration.ofDays(2)),
            true,
            null));
  }

  private static Issued sign(
      X500Name subject,
      KeyPair pair,
      Issued issuer,
      Instant notBefore,
      Instant notAfter,
      boolean isAuthority,
      GeneralName[] names) {
    try {
      X500Name issuerName =
          issuer == null
              ? subject
              : X500Name.getInstance(issuer.cert().getSubjectX500Principal().getEncoded());
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              issuerName,
              BigInteger.valueOf(SERIALS.incrementAndGet()),
              Date.from(notBefore),
              Date.from(notAfter),
              subject,
              pair.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(isAuthority));
      if (isAuthority) {
        b.addExtension(
            Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      } else {
        b.addExtension(
            Extension.keyUsage,
            true,
            new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
      }
      PrivateKey signingKey = issuer == null ? pair.getPrivate() : issuer.key();
      X509Certificate cert =
          new JcaX509CertificateConverter()
              .getCertificate(
                  b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signingKey)));
      return new Issued(cert, pair.getPrivate());
    } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot issue a test certificate: " + e.getMessage(), e);
    }
  }

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }

  private static Path write(Path file, String text) {
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, text, StandardCharsets.US_ASCII);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
