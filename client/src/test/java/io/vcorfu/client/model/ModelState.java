package io.vcorfu.client.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The layout of one model state in a {@code byte[]} (small, hashable, cloned per step) and its
 * accessors.
 *
 * <p>Header: the removed nodes and the crashed nodes (bit masks), what readers observed per address
 * (data, hole, which first) and which addresses were acknowledged to their client. Then one byte
 * per copy of every address: its slot ({@link #EMPTY} ... {@link #TRIMMED}). Then {@link #FIELDS}
 * bytes per process: its program counter and the little it remembers.
 */
final class ModelState {
  // Slot values. Lower case in traces = uncommitted.
  static final byte EMPTY = 0;
  static final byte DATA = 1;
  static final byte DATA_COMMITTED = 2;
  static final byte HOLE = 3;
  static final byte HOLE_COMMITTED = 4;
  static final byte TRIMMED = 5;

  // Header bytes.
  static final int REMOVED = 0;
  static final int CRASHED = 1;
  static final int SEEN = 2;
  static final int ACKED = 3;
  static final int HEADER = 4;

  // Observation bits per address (3 bits each in SEEN).
  static final int SAW_DATA = 1;
  static final int SAW_HOLE = 2;
  static final int HOLE_FIRST = 4;

  // Process fields.
  static final int PH = 0; // the process's phase (see Processes)
  static final int PM = 1; // layout (removed mask) a reader's chain walk was planned with
  static final int ADDR = 2; // the address the process works on
  static final int X0 = 3; // the chain a reader was asked to read
  static final int X = 4; // the chain it reads or fills now
  static final int ORIGIN = 5; // a stream whose empty slot the log decides first (0: none)
  static final int IDX = 6; // position in a chain walk
  static final int LEFT = 7; // reads left
  static final int SX = 8; // the chain whose slot is settled after a decision
  static final int DPH = 9; // decision phase (see Decisions)
  static final int DMASK = 10; // layout (removed mask) the decision's plan came from
  static final int DIDX = 11; // position in the decision's plan
  static final int DCONF = 12; // copies a finishing decision confirmed held (bit mask, 2 bytes)
  static final int PEND = 14; // writer: copies whose write is in flight (bit mask, 2 bytes)
  static final int FIELDS = 16;

  private final ModelConfig config;

  ModelState(ModelConfig config) {
    this.config = config;
  }

  ModelConfig config() {
    return config;
  }

  int size() {
    return HEADER + config.addresses() * config.copies() + config.processes() * FIELDS;
  }

  int slotAt(int address, int copy) {
    return HEADER + address * config.copies() + copy;
  }

  byte slot(byte[] s, int address, int copy) {
    return s[slotAt(address, copy)];
  }

  void setSlot(byte[] s, int address, int copy, byte value) {
    s[slotAt(address, copy)] = value;
  }

  int field(int process, int field) {
    return HEADER + config.addresses() * config.copies() + process * FIELDS + field;
  }

  int get(byte[] s, int process, int field) {
    return s[field(process, field)];
  }

  void set(byte[] s, int process, int field, int value) {
    s[field(process, field)] = (byte) value;
  }

  int mask(byte[] s, int process, int field) {
    int at = field(process, field);
    return (s[at] & 0xff) | ((s[at + 1] & 0xff) << 8);
  }

  void setMask(byte[] s, int process, int field, int value) {
    int at = field(process, field);
    s[at] = (byte) value;
    s[at + 1] = (byte) (value >>> 8);
  }

  static int removed(byte[] s) {
    return s[REMOVED];
  }

  static int removals(byte[] s) {
    return Integer.bitCount(s[REMOVED]);
  }

  static boolean committed(byte slot) {
    return slot == DATA_COMMITTED || slot == HOLE_COMMITTED;
  }

  static boolean holds(byte slot) {
    return slot == DATA || slot == DATA_COMMITTED;
  }

  static boolean hole(byte slot) {
    return slot == HOLE || slot == HOLE_COMMITTED;
  }

  int seen(byte[] s, int address) {
    return (s[SEEN] >> (3 * address)) & 7;
  }

  /** Records that a reader returned data ({@code data}) or a hole for {@code address}. */
  void observe(byte[] s, int address, boolean data) {
    int bits = seen(s, address);
    if (bits == 0 && !data) {
      bits |= HOLE_FIRST;
    }
    bits |= data ? SAW_DATA : SAW_HOLE;
    s[SEEN] = (byte) ((s[SEEN] & ~(7 << (3 * address))) | (bits << (3 * address)));
  }

  boolean acked(byte[] s, int address) {
    return (s[ACKED] & (1 << address)) != 0;
  }

  void ack(byte[] s, int address) {
    s[ACKED] |= (byte) (1 << address);
  }

  static String slotName(byte slot) {
    return switch (slot) {
      case EMPTY -> "-";
      case DATA -> "d";
      case DATA_COMMITTED -> "D";
      case HOLE -> "h";
      case HOLE_COMMITTED -> "H";
      case TRIMMED -> "T";
      default -> "?" + slot;
    };
  }

  /** The replicas' slots and the faults of {@code s}, for traces. */
  String render(byte[] s) {
    List<String> parts = new ArrayList<>();
    for (int a = 0; a < config.addresses(); a++) {
      StringBuilder b = new StringBuilder(config.addresses() > 1 ? "@" + a + " " : "");
      for (int k = 0; k < config.chains(); k++) {
        b.append(k == 0 ? "log[" : " s" + k + "[");
        int[] initial = k == 0 ? config.logChain() : config.streamChains()[k - 1];
        for (int i = 0; i < initial.length; i++) {
          int n = initial[i];
          b.append(i > 0 ? " " : "").append(config.nodeName(n)).append(':');
          b.append((removed(s) & (1 << n)) != 0 ? "x" : "");
          b.append(slotName(slot(s, a, config.copy(k, n))));
        }
        b.append(']');
      }
      parts.add(b.toString());
    }
    String faults = "";
    if (s[REMOVED] != 0 || s[CRASHED] != 0) {
      faults = " removed=" + nodes(s[REMOVED]) + " crashed=" + nodes(s[CRASHED]);
    }
    return String.join(" | ", parts) + faults;
  }

  private String nodes(int mask) {
    List<String> out = new ArrayList<>();
    for (int n = 0; n < config.nodes(); n++) {
      if ((mask & (1 << n)) != 0) {
        out.add(config.nodeName(n));
      }
    }
    return out.toString();
  }
}
