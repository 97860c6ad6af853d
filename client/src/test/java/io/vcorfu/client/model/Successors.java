package io.vcorfu.client.model;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The successors of one state, each with the event that leads to it (named only when asked). */
final class Successors {
  private final boolean named;
  private final List<byte[]> states = new ArrayList<>();
  private final List<String> events = new ArrayList<>();

  Successors(boolean named) {
    this.named = named;
  }

  void add(byte[] state, Supplier<String> event) {
    states.add(state);
    events.add(named ? event.get() : null);
  }

  List<byte[]> states() {
    return states;
  }

  List<String> events() {
    return events;
  }
}
