package io.vcorfu.server.cli;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TlsContexts;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --tls-ca}, {@code --tls-cert} and {@code --tls-key} of the commands that talk to nodes:
 * the TLS a client speaks, each option taken from its environment variable ({@code VCORFU_TLS_CA},
 * {@code VCORFU_TLS_CERT}, {@code VCORFU_TLS_KEY}) when not given; plaintext when neither names a
 * CA file.
 */
public final class TlsFlags {
  @Option(
      names = "--tls-ca",
      paramLabel = "FILE",
      description =
          "Speak TLS, trusting nodes whose certificate this CA file (PEM) signed (default:"
              + " $VCORFU_TLS_CA; neither: plaintext).")
  Path ca;

  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      description =
          "This client's certificate (PEM), which nodes with TLS require (default:"
              + " $VCORFU_TLS_CERT).")
  Path cert;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      description =
          "The private key of --tls-cert (PEM, unencrypted PKCS#8) (default: $VCORFU_TLS_KEY).")
  Path key;

  /** The command these options belong to. */
  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /**
   * The TLS these flags and the environment ask for, or null for plaintext; its files checked.
   *
   * @throws ParameterException (a usage error, exit 2) naming the file and what to do when a
   *     certificate comes without its key or without a CA, or a file cannot be used
   */
  public TlsOptions options() {
    try {
      TlsOptions tls = TlsOptions.fromFlags(ca, cert, key, System.getenv());
      if (tls != null) {
        TlsContexts.load(tls);
      }
      return tls;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
  }
}
