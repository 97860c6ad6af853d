package io.vcorfu.runtime.example;

import io.vcorfu.runtime.VersionCapturing;
import io.vcorfu.runtime.annotations.Accessor;
import io.vcorfu.runtime.annotations.Mutator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An append-only list of lines kept as a persistent linked list (each version shares all older
 * lines), so the runtime captures one version per update. {@link #UPCALLS} counts every upcall of
 * {@link #add} in this JVM, on any instance: a read that replays history moves it.
 */
public class Journal implements VersionCapturing<Journal.Line> {
  public static final AtomicLong UPCALLS = new AtomicLong();

  /** One line and every line before it. */
  public record Line(String text, Line previous, int count) {}

  private Line last;

  @Mutator
  public void add(String text) {
    UPCALLS.incrementAndGet();
    last = new Line(text, last, size() + 1);
  }

  @Accessor
  public int size() {
    return last == null ? 0 : last.count();
  }

  @Accessor
  public List<String> lines() {
    List<String> out = new ArrayList<>();
    for (Line l = last; l != null; l = l.previous()) {
      out.add(l.text());
    }
    Collections.reverse(out);
    return out;
  }

  @Override
  public Line captureVersion() {
    return last;
  }

  @Override
  public void restoreVersion(Line version) {
    last = version;
  }

  @Override
  public Object toCheckpoint(Line version) {
    List<String> out = new ArrayList<>();
    for (Line l = version; l != null; l = l.previous()) {
      out.add(l.text());
    }
    Collections.reverse(out);
    return out;
  }

  @Override
  public Line fromCheckpoint(Object checkpoint) {
    Line l = null;
    int n = 0;
    for (Object text : (List<?>) checkpoint) {
      l = new Line((String) text, l, ++n);
    }
    return l;
  }
}
