package io.vcorfu.client;

import java.util.List;

/**
 * The condition of a conditional append (the paper's conditional issuance): the sequencer issues
 * the token only if no key of {@code readSet} was written after {@code snapshot}, and records the
 * keys of {@code writeSet} as written at the issued address. {@code snapshotEpoch} is the log's
 * epoch when the snapshot was taken (see {@link StreamLog#epoch()}); a snapshot of -1 with an empty
 * read set is a keyed blind write.
 */
public record IssueCondition(
    long snapshot, long snapshotEpoch, List<ConflictKey> readSet, List<ConflictKey> writeSet) {

  public IssueCondition {
    readSet = List.copyOf(readSet);
    writeSet = List.copyOf(writeSet);
  }
}
