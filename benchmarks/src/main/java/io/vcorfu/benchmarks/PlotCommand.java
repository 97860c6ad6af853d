package io.vcorfu.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import javax.imageio.ImageIO;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vcorfu bench plot}: draws a timeline written by {@code benchmarks/run-rebuild.sh} (columns
 * second, appends, rebuild_mib, event) or {@code benchmarks/run-degraded.sh} (second, appends,
 * reads, event) as a PNG: the second column per second as a line (left axis), the third as a second
 * line (right axis), and a labelled vertical mark per event.
 */
@Command(
    name = "plot",
    mixinStandardHelpOptions = true,
    description = "Draw a run-rebuild.sh timeline (TSV) as a PNG.")
final class PlotCommand implements Callable<Integer> {
  @Option(names = "--input", required = true, description = "The timeline TSV.")
  Path input;

  @Option(names = "--output", required = true, description = "The PNG to write.")
  Path output;

  @Option(
      names = "--title",
      defaultValue = "Appends per second across a failure and a rebuild",
      description = "The plot's title (default: ${DEFAULT-VALUE}).")
  String title;

  @Option(
      names = "--left-label",
      defaultValue = "appends/s",
      description = "What the second column is (left axis; default ${DEFAULT-VALUE}).")
  String leftLabel;

  @Option(
      names = "--right-label",
      defaultValue = "MiB copied",
      description = "What the third column is (right axis; default ${DEFAULT-VALUE}).")
  String rightLabel;

  private record Row(int second, double appends, double rebuildMib, String event) {}

  @Override
  public Integer call() throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Row> rows = new ArrayList<>();
    for (String line : Files.readAllLines(input, StandardCharsets.UTF_8)) {
      String[] f = line.split("\t", -1);
      if (f.length < 3 || f[0].equals("second")) {
        continue;
      }
      rows.add(
          new Row(
              Integer.parseInt(f[0]),
              Double.parseDouble(f[1]),
              Double.parseDouble(f[2]),
              f.length > 3 ? f[3] : ""));
    }
    if (rows.isEmpty()) {
      System.err.println("bench plot: " + input + " holds no rows");
      return 1;
    }
    int width = 1000;
    int height = 500;
    int left = 70;
    int right = 70;
    int top = 50;
    int bottom = 50;
    double maxAppends = rows.stream().mapToDouble(Row::appends).max().orElse(1);
    double maxMib = Math.max(1, rows.stream().mapToDouble(Row::rebuildMib).max().orElse(1));
    int lastSecond = rows.get(rows.size() - 1).second();
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, width, height);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.drawString(title, left, 28);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    int plotW = width - left - right;
    int plotH = height - top - bottom;
    g.drawRect(left, top, plotW, plotH);
    for (int i = 0; i <= 4; i++) {
      int y = top + plotH - i * plotH / 4;
      g.setColor(new Color(230, 230, 230));
      g.drawLine(left + 1, y, left + plotW - 1, y);
      g.setColor(Color.BLUE.darker());
      g.drawString(String.format("%.0f", maxAppends * i / 4), 8, y + 4);
      g.setColor(new Color(200, 90, 0));
      g.drawString(String.format("%.0f", maxMib * i / 4), left + plotW + 6, y + 4);
    }
    g.setColor(Color.BLACK);
    for (int s = 0; s <= lastSecond; s += Math.max(1, lastSecond / 10)) {
      int x = left + s * plotW / Math.max(1, lastSecond);
      g.drawString(s + " s", x - 8, top + plotH + 18);
    }
    g.setColor(Color.BLUE.darker());
    g.drawString(leftLabel, 8, top - 8);
    g.setColor(new Color(200, 90, 0));
    g.drawString(rightLabel, width - 4 - g.getFontMetrics().stringWidth(rightLabel), top - 8);
    int labelRow = 0;
    for (Row r : rows) {
      if (r.event().isEmpty()) {
        continue;
      }
      int x = left + r.second() * plotW / Math.max(1, lastSecond);
      g.setColor(Color.GRAY);
      g.setStroke(
          new BasicStroke(
              1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f}, 0f));
      g.drawLine(x, top, x, top + plotH);
      g.setStroke(new BasicStroke(1f));
      g.setColor(Color.DARK_GRAY);
      g.drawString(r.event(), x + 3, top + 14 + 14 * (labelRow++ % 4));
    }
    g.setStroke(new BasicStroke(2f));
    drawLine(g, rows, true, maxAppends, left, top, plotW, plotH, lastSecond, Color.BLUE.darker());
    drawLine(g, rows, false, maxMib, left, top, plotW, plotH, lastSecond, new Color(200, 90, 0));
    g.dispose();
    ImageIO.write(image, "png", output.toFile());
    System.out.println("bench plot: wrote " + output);
    return 0;
  }

  private static void drawLine(
      Graphics2D g,
      List<Row> rows,
      boolean appends,
      double max,
      int left,
      int top,
      int plotW,
      int plotH,
      int lastSecond,
      Color color) {
    g.setColor(color);
    int px = -1;
    int py = -1;
    for (Row r : rows) {
      double v = appends ? r.appends() : r.rebuildMib();
      int x = left + r.second() * plotW / Math.max(1, lastSecond);
      int y = top + plotH - (int) Math.round(v / max * plotH);
      if (px >= 0) {
        g.drawLine(px, py, x, y);
      }
      px = x;
      py = y;
    }
  }
}
