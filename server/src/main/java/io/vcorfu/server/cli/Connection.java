package io.vcorfu.server.cli;

import io.vcorfu.client.ClusterStreamLog;
import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --endpoint}, {@code --timeout} and the TLS options ({@link TlsFlags}), shared by the
 * commands that talk to a cluster: which nodes to ask ({@code VCORFU_ENDPOINT} when the option is
 * not given), how long to wait for an answer, failovers included, and how to connect.
 */
final class Connection {
  /** The environment variable read when {@code --endpoint} is not given. */
  static final String ENDPOINT_VARIABLE = "VCORFU_ENDPOINT";

  @Option(
      names = "--endpoint",
      defaultValue = "${env:VCORFU_ENDPOINT:-127.0.0.1:9000}",
      converter = EndpointsConverter.class,
      paramLabel = "H:P[,H:P...]",
      description =
          "A node of the cluster, or several separated by commas, asked in order until one"
              + " answers (default: $VCORFU_ENDPOINT, else 127.0.0.1:9000).")
  Endpoints endpoints;

  @Option(
      names = "--timeout",
      defaultValue = "30s",
      converter = DurationConverter.class,
      paramLabel = "DURATION",
      description =
          "How long to wait for the cluster, riding through failovers: 500ms, 10s, 2m, or seconds"
              + " (default ${DEFAULT-VALUE}).")
  Duration timeout;

  @picocli.CommandLine.Mixin TlsFlags tls = new TlsFlags();

  /** The command these options belong to (null when they stand alone). */
  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /** A list of endpoints as given. */
  record Endpoints(List<Endpoint> list, String given) {
    @Override
    public String toString() {
      return given;
    }
  }

  /** Parses {@code --endpoint}; a malformed list is a usage error. */
  static final class EndpointsConverter implements ITypeConverter<Endpoints> {
    @Override
    public Endpoints convert(String value) {
      try {
        return new Endpoints(Endpoint.parseList(value), value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** Parses a duration: {@code 250ms}, {@code 10s}, {@code 2m}, or a number of seconds. */
  static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String v = value.strip();
      try {
        Duration d;
        if (v.endsWith("ms")) {
          d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        } else if (v.endsWith("s")) {
          d =
              Duration.ofMillis(
                  Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1e3));
        } else if (v.endsWith("m")) {
          d = Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)) * 60);
        } else {
          d = Duration.ofMillis(Math.round(Double.parseDouble(v) * 1e3));
        }
        if (d.isNegative() || d.isZero()) {
          throw new TypeConversionException("'" + value + "' is not a positive duration");
        }
        return d;
      } catch (NumberFormatException e) {
        throw new TypeConversionException(
            "'" + value + "' is not a duration: give 500ms, 10s, 2m or a number of seconds");
      }
    }
  }

  /** The client options these settings give: every wait bounded by {@link #timeout}. */
  StreamLogOptions options() {
    Duration request =
        timeout.compareTo(Duration.ofSeconds(5)) < 0 ? timeout : Duration.ofSeconds(5);
    return StreamLogOptions.defaults()
        .withFailoverTimeout(timeout)
        .withRpc(ClientOptions.defaults().withRequestTimeout(request))
        .withTls(tls.options());
  }

  /**
   * A log client of these settings: inside {@code vcorfu shell} the one the shell keeps for them,
   * else a new one on a transport of its own, closed with the lease.
   */
  ShellSession.Held<ClusterStreamLog> log() {
    ShellSession shell = ShellSession.of(command);
    if (shell != null) {
      return shell.log(this);
    }
    return ShellSession.Held.own(ClusterStreamLog.connect(endpoints.list(), options()));
  }

  /**
   * An object runtime of these settings: inside {@code vcorfu shell} the one the shell keeps for
   * them, else a new one, closed with the lease.
   */
  ShellSession.Held<VCorfuRuntime> runtime() {
    ShellSession shell = ShellSession.of(command);
    if (shell != null) {
      return shell.runtime(this);
    }
    return ShellSession.Held.own(
        VCorfuRuntime.connect(endpoints.given(), RuntimeOptions.defaults(), options()));
  }

  /**
   * {@code f}'s value, waiting at most {@link #timeout}; its failure unwrapped, or a timeout that
   * says what was waited for.
   */
  <T> T await(CompletableFuture<T> f, String what) throws Exception {
    try {
      return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = io.vcorfu.client.rpc.EpochRpc.unwrap(e.getCause());
      throw cause instanceof Exception ex ? ex : e;
    } catch (TimeoutException e) {
      f.cancel(true);
      throw new io.vcorfu.protocol.RpcTimeoutException(
          what + " did not complete within " + timeout.toMillis() + " ms (--timeout)");
    }
  }
}
