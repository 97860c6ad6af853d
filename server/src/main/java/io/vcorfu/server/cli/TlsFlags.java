package io.vcorfu.server.cli;

import io.vcorfu.protocol.TlsOptions;
import io.vcorfu.protocol.netty.TlsContexts;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --tls-ca}, {@code --tls-cert}, {@code --tls-key} and {@code --token-file} of the commands
 * that talk to nodes: the TLS a client speaks and the credentials it presents, each option taken
 * from its environment variable ({@code VCORFU_TLS_CA}, {@code VCORFU_TLS_CERT}, {@code
 * VCORFU_TLS_KEY}, {@code VCORFU_TOKEN_FILE}) when not given; plaintext when neither names a CA
 * file.
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

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "Authenticate with the bearer token on this file's first line instead of a certificate,"
              + " to nodes run with --tokens; needs --tls-ca (default: $VCORFU_TOKEN_FILE).")
  Path tokenFile;

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
      TlsOptions tls =
          TlsOptions.fromFlags(ca, cert, key, tokenFile, ShellSession.environment(command));
      if (tls != null) {
        TlsContexts.load(tls);
        tls.token();
      }
      return tls;
    } catch (IllegalArgumentException e) {
      throw new ParameterException(command.commandLine(), e.getMessage(), e);
    }
  }
}
