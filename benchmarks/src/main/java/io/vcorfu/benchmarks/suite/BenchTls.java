package io.vcorfu.benchmarks.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The certificates of a benchmark run with TLS, made with the {@code openssl} command in a
 * directory of the run: a CA, a server certificate for 127.0.0.1 (every server of the run presents
 * it) and a client certificate (every client presents it), EC P-256 keys in PKCS#8 PEM, as
 * docs/security.md makes them.
 */
record BenchTls(Path ca, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {
  /** Makes the files under {@code dir} (created). */
  static BenchTls make(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path caKey = dir.resolve("ca.key");
    Path ca = dir.resolve("ca.pem");
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "7",
        "-subj",
        "/CN=bench CA",
        "-keyout",
        caKey.toString(),
        "-out",
        ca.toString());
    Path ext =
        Files.writeString(
            dir.resolve("ext.cnf"),
            "subjectAltName=DNS:localhost,IP:"
                + Net.HOST
                + "\n"
                + "keyUsage=digitalSignature,keyEncipherment\n"
                + "extendedKeyUsage=serverAuth,clientAuth\n");
    BenchTls tls =
        new BenchTls(
            ca,
            dir.resolve("server.pem"),
            dir.resolve("server.key"),
            dir.resolve("client.pem"),
            dir.resolve("client.key"));
    issue(dir, ca, caKey, ext, "server", tls.serverCert(), tls.serverKey());
    issue(dir, ca, caKey, ext, "client", tls.clientCert(), tls.clientKey());
    return tls;
  }

  private static void issue(
      Path dir, Path ca, Path caKey, Path ext, String name, Path cert, Path key)
      throws IOException, InterruptedException {
    Path csr = dir.resolve(name + ".csr");
    openssl(
        dir,
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-subj",
        "/CN=" + name,
        "-keyout",
        key.toString(),
        "-out",
        csr.toString());
    openssl(
        dir,
        "x509",
        "-req",
        "-in",
        csr.toString(),
        "-CA",
        ca.toString(),
        "-CAkey",
        caKey.toString(),
        "-CAcreateserial",
        "-days",
        "7",
        "-extfile",
        ext.toString(),
        "-out",
        cert.toString());
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException(
          "making the run's certificates failed (is the openssl command installed?): "
              + String.join(" ", command)
              + ": "
              + out.strip());
    }
  }

  /** The vcorfu node's flags for these files. */
  List<String> nodeFlags() {
    return List.of(
        "--tls-cert",
        serverCert.toString(),
        "--tls-key",
        serverKey.toString(),
        "--tls-ca",
        ca.toString());
  }

  /** etcd-bench's flags presenting the client certificate and trusting the run's CA. */
  List<String> etcdBenchFlags() {
    return List.of(
        "--cacert", ca.toString(), "--cert", clientCert.toString(), "--key", clientKey.toString());
  }

  /** {@code vcorfu bench}'s flags presenting the client certificate and trusting the run's CA. */
  List<String> clientFlags() {
    return List.of(
        "--tls-ca",
        ca.toString(),
        "--tls-cert",
        clientCert.toString(),
        "--tls-key",
        clientKey.toString());
  }

  /** YCSB properties giving the binding called {@code db} the client's files. */
  List<String> ycsbProperties(String db) {
    return List.of(
        "-p", db + ".tls.ca=" + ca,
        "-p", db + ".tls.cert=" + clientCert,
        "-p", db + ".tls.key=" + clientKey);
  }
}
