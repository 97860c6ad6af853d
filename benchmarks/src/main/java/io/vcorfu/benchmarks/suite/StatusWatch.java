package io.vcorfu.benchmarks.suite;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One {@code cluster status --output json --watch-ms 250} process samples the cluster for a whole
 * run (one JVM, not one per sample, so that sampling does not eat the foreground's processor); its
 * lines go to a file that this reads as it grows. Used by the run's thread only.
 */
final class StatusWatch {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private long offset;
  private long lines;
  private String latest = "";
  private final StringBuilder partial = new StringBuilder();

  private StatusWatch(Path file) {
    this.file = file;
  }

  /** Starts the sampler against ENDPOINTS, its samples in DIR/status.jsonl. */
  static StatusWatch start(Processes processes, VcorfuProcesses vcorfu, String endpoints, Path dir)
      throws IOException {
    Path out = dir.resolve("status.jsonl");
    Files.writeString(out, "");
    processes.start(
        "cluster status",
        out,
        dir.resolve("status.err"),
        vcorfu.cli(
            List.of(
                "cluster",
                "status",
                "--endpoint",
                endpoints,
                "--output",
                "json",
                "--watch-ms",
                "250")));
    return new StatusWatch(out);
  }

  private void readMore() throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      long length = f.length();
      if (length <= offset) {
        return;
      }
      byte[] bytes = new byte[(int) Math.min(length - offset, 64L << 20)];
      f.seek(offset);
      f.readFully(bytes);
      offset += bytes.length;
      partial.append(new String(bytes, StandardCharsets.UTF_8));
    }
    int nl;
    while ((nl = partial.indexOf("\n")) >= 0) {
      String line = partial.substring(0, nl);
      partial.delete(0, nl + 1);
      lines++;
      if (!line.isBlank()) {
        latest = line;
      }
    }
  }

  /** The latest sample, waiting (up to 2 s) for one newer than the call; empty before the first. */
  ClusterStatus latest() throws IOException, InterruptedException {
    readMore();
    long seen = lines;
    for (int i = 0; i < 40 && lines <= seen; i++) {
      Thread.sleep(50);
      readMore();
    }
    return new ClusterStatus(JSON.readTree(latest.isEmpty() ? "{}" : latest));
  }
}
