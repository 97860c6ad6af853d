package io.vcorfu.server.linearizability;

import io.vcorfu.client.StreamLogOptions;
import io.vcorfu.runtime.RuntimeOptions;
import io.vcorfu.runtime.VCorfuRuntime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A client process of {@link LeasedRegisterHistoryTest}: runs a {@link RegisterWorkload} through
 * its own runtime and writes the calls it made to a file, one {@link Operation#format} line each.
 *
 * <p>Protocol on standard streams: prints {@code clock <nanoTime>} first (the test checks that the
 * clocks of the processes compare), then {@code ready} once its registers are open, waits for a
 * line {@code go} on standard input, runs, writes the file and prints {@code done <calls>}.
 *
 * <p>Arguments: {@code host:port leaseMs process threads keys callsPerThread durationMs seed
 * historyFile}; a lease of 0 means no read lease.
 */
public final class RegisterHistoryClient {
  private RegisterHistoryClient() {}

  public static void main(String[] args) throws Exception {
    System.out.println("clock " + System.nanoTime());
    String node = args[0];
    long leaseMs = Long.parseLong(args[1]);
    RegisterWorkload workload =
        new RegisterWorkload(
            args[2],
            Integer.parseInt(args[3]),
            Integer.parseInt(args[4]),
            Integer.parseInt(args[5]),
            Duration.ofMillis(Long.parseLong(args[6])));
    long seed = Long.parseLong(args[7]);
    Path out = Path.of(args[8]);
    StreamLogOptions log =
        leaseMs == 0
            ? StreamLogOptions.defaults()
            : StreamLogOptions.defaults().withReadLease(Duration.ofMillis(leaseMs));
    try (VCorfuRuntime rt = VCorfuRuntime.connect(node, RuntimeOptions.defaults(), log)) {
      List<Register> registers = workload.open(rt);
      System.out.println("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); !"go".equals(line); line = in.readLine()) {
        if (line == null) {
          System.out.println("standard input closed before go");
          System.exit(2);
        }
      }
      List<Operation> history = workload.run(registers, seed);
      Files.write(out, history.stream().map(Operation::format).toList(), StandardCharsets.UTF_8);
      System.out.println("done " + history.size());
    }
    System.exit(0);
  }
}
