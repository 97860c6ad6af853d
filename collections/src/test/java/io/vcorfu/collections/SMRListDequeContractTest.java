package io.vcorfu.collections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vcorfu.collections.Harness.Outcome;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Queue;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Deque}, {@link Queue} and stack contracts, checked on {@link SMRList} against {@link
 * ArrayDeque}.
 */
class SMRListDequeContractTest {
  private static final Logger LOG = LoggerFactory.getLogger(SMRListDequeContractTest.class);

  private final Harness harness = new Harness();
  private final String name = "deque-" + UUID.randomUUID();

  @AfterEach
  void close() {
    harness.close();
  }

  @ParameterizedTest
  @ValueSource(longs = {3L, 99L, 20261122L})
  void randomDequeOperationsThroughTwoClientsMatchArrayDeque(long seed) {
    LOG.info("seed {}", seed);
    Random random = new Random(seed);
    List<SMRList<Integer>> clients =
        List.of(Harness.list(harness.runtime(), name), Harness.list(harness.runtime(), name));
    Deque<Integer> model = new ArrayDeque<>();
    for (int step = 0; step < 400; step++) {
      SMRList<Integer> deque = clients.get(random.nextInt(2));
      // Bias towards removals when long, so the empty-deque cases come up often.
      int op = model.size() > 6 ? 10 + random.nextInt(12) : random.nextInt(22);
      int e = random.nextInt(8);
      String what = "step " + step + " op " + op + " e " + e;
      assertThat(apply(deque, op, e)).as(what).isEqualTo(apply(model, op, e));
      if (step % 20 == 0) {
        for (SMRList<Integer> c : clients) {
          assertThat(c).as(what).containsExactlyElementsOf(model);
          List<Integer> backwards = new ArrayList<>();
          c.descendingIterator().forEachRemaining(backwards::add);
          List<Integer> expected = new ArrayList<>();
          model.descendingIterator().forEachRemaining(expected::add);
          assertThat(backwards).isEqualTo(expected);
        }
      }
    }
  }

  private static Outcome apply(Deque<Integer> d, int op, int e) {
    switch (op) {
      case 0:
        return Outcome.of(() -> d.offerFirst(e));
      case 1:
        return Outcome.of(() -> d.offerLast(e));
      case 2:
        return Outcome.of(() -> d.offer(e));
      case 3:
        return Outcome.of(() -> d.add(e));
      case 4:
        return Outcome.of(
            () -> {
              d.addFirst(e);
              return null;
            });
      case 5:
        return Outcome.of(
            () -> {
              d.addLast(e);
              return null;
            });
      case 6:
        return Outcome.of(
            () -> {
              d.push(e);
              return null;
            });
      case 7:
        return Outcome.of(d::peekFirst);
      case 8:
        return Outcome.of(d::peekLast);
      case 9:
        return Outcome.of(d::peek);
      case 10:
        return Outcome.of(d::pollFirst);
      case 11:
        return Outcome.of(d::pollLast);
      case 12:
        return Outcome.of(d::poll);
      case 13:
        return Outcome.of(d::pop);
      case 14:
        return Outcome.of(d::removeFirst);
      case 15:
        return Outcome.of(d::removeLast);
      case 16:
        return Outcome.of(d::remove);
      case 17:
        return Outcome.of(() -> List.of(d.getFirst(), d.getLast(), d.element()));
      case 18:
        return Outcome.of(() -> d.removeFirstOccurrence(e));
      case 19:
        return Outcome.of(() -> d.removeLastOccurrence(e));
      case 20:
        return Outcome.of(() -> List.of(d.contains(e), d.size(), d.isEmpty()));
      default:
        return Outcome.of(() -> d.remove((Object) e));
    }
  }

  @Test
  void anEmptyDequeThrowsNoSuchElementWhereArrayDequeDoesAndAnswersNullElsewhere() {
    SMRList<String> d = Harness.list(harness.runtime(), name);
    assertThatThrownBy(d::removeFirst).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(d::removeLast).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(d::remove).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(d::pop).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(d::getFirst).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(d::getLast).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(d::element).isInstanceOf(NoSuchElementException.class);
    assertThatThrownBy(() -> d.descendingIterator().next())
        .isInstanceOf(NoSuchElementException.class);
    assertThat(d.pollFirst()).isNull();
    assertThat(d.pollLast()).isNull();
    assertThat(d.poll()).isNull();
    assertThat(d.peekFirst()).isNull();
    assertThat(d.peekLast()).isNull();
    assertThat(d.peek()).isNull();
    assertThatThrownBy(() -> d.offerFirst(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> d.offerLast(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> d.push(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> d.addFirst(null)).isInstanceOf(NullPointerException.class);
    assertThat(d.removeFirstOccurrence(null)).isFalse();
    assertThat(d.removeLastOccurrence(null)).isFalse();
    assertThat(d).isEmpty();
  }

  @Test
  void oneListIsAQueueAStackAndAListAtOnce() {
    SMRList<String> list = Harness.list(harness.runtime(), name);
    Queue<String> queue = Harness.list(harness.runtime(), name);
    Deque<String> stack = Harness.list(harness.runtime(), name);
    queue.offer("q1");
    queue.offer("q2");
    stack.push("s1");
    list.add(1, "middle");
    assertThat(list).containsExactly("s1", "middle", "q1", "q2");
    assertThat(stack.pop()).isEqualTo("s1");
    assertThat(queue.poll()).isEqualTo("middle");
    assertThat(list.get(0)).isEqualTo("q1");
    assertThat(stack.peekLast()).isEqualTo("q2");
    assertThat(queue.size()).isEqualTo(2);
  }

  @Test
  void fifoAndLifoOrdersHoldAcrossClients() {
    Queue<Integer> producer = Harness.list(harness.runtime(), name);
    Queue<Integer> consumer = Harness.list(harness.runtime(), name);
    for (int i = 0; i < 20; i++) {
      producer.offer(i);
    }
    for (int i = 0; i < 20; i++) {
      assertThat(consumer.poll()).isEqualTo(i);
    }
    Deque<Integer> pusher = Harness.list(harness.runtime(), name + "-stack");
    Deque<Integer> popper = Harness.list(harness.runtime(), name + "-stack");
    for (int i = 0; i < 20; i++) {
      pusher.push(i);
    }
    for (int i = 19; i >= 0; i--) {
      assertThat(popper.pop()).isEqualTo(i);
    }
    assertThat(popper.poll()).isNull();
  }

  @Test
  void descendingIteratorRemoveWritesThroughOntoItsVersionOnly() {
    SMRList<Integer> d = Harness.list(harness.runtime(), name);
    SMRList<Integer> other = Harness.list(harness.runtime(), name);
    d.addAll(List.of(1, 2, 3, 4));
    Iterator<Integer> it = d.descendingIterator();
    assertThatThrownBy(it::remove).isInstanceOf(IllegalStateException.class);
    assertThat(it.next()).isEqualTo(4);
    it.remove();
    assertThat(it.next()).isEqualTo(3);
    assertThat(other).containsExactly(1, 2, 3);
    other.addFirst(0);
    assertThat(it.next()).isEqualTo(2);
    assertThatThrownBy(it::remove).isInstanceOf(ConcurrentModificationException.class);
    assertThat(d).containsExactly(0, 1, 2, 3);
  }
}
