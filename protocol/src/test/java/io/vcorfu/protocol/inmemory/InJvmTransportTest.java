package io.vcorfu.protocol.inmemory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vcorfu.protocol.ClientOptions;
import io.vcorfu.protocol.Endpoint;
import io.vcorfu.protocol.RpcClient;
import io.vcorfu.protocol.RpcTimeoutException;
import io.vcorfu.protocol.TooLargeException;
import io.vcorfu.protocol.Transport.ServerBinding;
import io.vcorfu.protocol.TransportException;
import io.vcorfu.protocol.proto.Request;
import io.vcorfu.protocol.proto.Response;
import io.vcorfu.protocol.testing.EchoHandler;
import io.vcorfu.protocol.testing.Messages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InJvmTransportTest {
  private InJvmTransport transport;
  private EchoHandler echo;
  private ServerBinding server;
  private RpcClient client;

  @BeforeEach
  void start() {
    transport = new InJvmTransport();
    echo = new EchoHandler("mem").recording();
    server = transport.bind(new Endpoint("node-a", 0), echo);
    client =
        transport.newClient(ClientOptions.defaults().withRequestTimeout(Duration.ofMillis(300)));
  }

  @AfterEach
  void stop() {
    transport.close();
  }

  private static Throwable failure(CompletableFuture<?> future) {
    try {
      future.get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("the call did not fail in time", e);
    }
    throw new AssertionError("the call succeeded but should have failed");
  }

  private List<Long> receivedNumbers() {
    return echo.received().stream()
        .filter(Request::hasLogRead)
        .map(r -> r.getLogRead().getFrom())
        .toList();
  }

  @Test
  void bindingPortZeroPicksDistinctPorts() {
    ServerBinding other = transport.bind(new Endpoint("node-a", 0), new EchoHandler("b"));
    assertThat(server.endpoint().port()).isPositive();
    assertThat(other.endpoint()).isNotEqualTo(server.endpoint());
    assertThatThrownBy(() -> transport.bind(server.endpoint(), new EchoHandler("c")))
        .isInstanceOf(TransportException.class);
  }

  @Test
  void roundTripCarriesTheRequestIdAndTheServersAnswer() {
    Response r = client.call(server.endpoint(), Messages.ping(4)).join();
    assertThat(r.getPing().getNodeId()).isEqualTo("mem");
    assertThat(r.getHeader().getRequestId())
        .isEqualTo(echo.received().get(0).getHeader().getRequestId());
    assertThat(r.getHeader().getEpoch()).isEqualTo(4);
  }

  @Test
  void withoutFaultsRequestsArriveInTheOrderSent() {
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      calls.add(client.call(server.endpoint(), Messages.numbered(i)));
    }
    for (int i = 0; i < 500; i++) {
      assertThat(Messages.number(calls.get(i).join())).isEqualTo(i);
    }
    assertThat(receivedNumbers()).isSorted().hasSize(500);
  }

  @Test
  void aDroppedRequestNeverReachesTheServerAndTimesOut() {
    FaultRule rule =
        transport
            .faults()
            .add(
                FaultRule.requests()
                    .to(server.endpoint())
                    .ofCase(Request.PayloadCase.LOG_READ)
                    .drop());
    assertThat(failure(client.call(server.endpoint(), Messages.numbered(1))))
        .isInstanceOf(RpcTimeoutException.class);
    assertThat(client.call(server.endpoint(), Messages.ping()).join().hasPing())
        .as("other cases pass")
        .isTrue();
    assertThat(rule.hits()).isEqualTo(1);
    assertThat(receivedNumbers()).isEmpty();

    transport.faults().remove(rule);
    assertThat(Messages.number(client.call(server.endpoint(), Messages.numbered(2)).join()))
        .isEqualTo(2);
  }

  @Test
  void aDroppedResponseTimesOutAfterTheServerHandledTheRequest() {
    transport.faults().add(FaultRule.responses().to(server.endpoint()).drop());
    assertThat(failure(client.call(server.endpoint(), Messages.numbered(7))))
        .isInstanceOf(RpcTimeoutException.class);
    assertThat(receivedNumbers()).containsExactly(7L);
  }

  @Test
  void aPredicateSelectsWhichRequestsAreDropped() {
    transport
        .faults()
        .add(FaultRule.requests().when(r -> r.getLogRead().getFrom() % 2 == 1).drop());
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(client.call(server.endpoint(), Messages.numbered(i)));
    }
    for (int i = 0; i < 6; i++) {
      if (i % 2 == 0) {
        assertThat(Messages.number(calls.get(i).join())).isEqualTo(i);
      } else {
        assertThat(failure(calls.get(i))).isInstanceOf(RpcTimeoutException.class);
      }
    }
    assertThat(receivedNumbers()).containsExactly(0L, 2L, 4L);
  }

  @Test
  void aDuplicatedRequestIsHandledTwiceAndItsCallCompletesOnce() {
    FaultRule rule =
        transport
            .faults()
            .add(FaultRule.requests().ofCase(Request.PayloadCase.LOG_READ).duplicate());
    assertThat(Messages.number(client.call(server.endpoint(), Messages.numbered(3)).join()))
        .isEqualTo(3);
    await().atMost(Duration.ofSeconds(5)).until(() -> receivedNumbers().size() == 2);
    assertThat(receivedNumbers()).containsExactly(3L, 3L);
    assertThat(rule.hits()).isEqualTo(1);
  }

  @Test
  void aDuplicatedResponseCompletesItsCallOnce() {
    transport.faults().add(FaultRule.responses().duplicate());
    assertThat(Messages.number(client.call(server.endpoint(), Messages.numbered(5)).join()))
        .isEqualTo(5);
    assertThat(Messages.number(client.call(server.endpoint(), Messages.numbered(6)).join()))
        .isEqualTo(6);
    assertThat(receivedNumbers()).containsExactly(5L, 6L);
  }

  @Test
  void anAnswerPredicateSelectsResponsesByTheirContent() {
    FaultRule rule =
        transport
            .faults()
            .add(FaultRule.responses().whenAnswer(r -> Messages.number(r) == 2).drop());
    assertThat(Messages.number(client.call(server.endpoint(), Messages.numbered(1)).join()))
        .isEqualTo(1);
    assertThat(failure(client.call(server.endpoint(), Messages.numbered(2))))
        .isInstanceOf(RpcTimeoutException.class);
    assertThat(rule.hits()).isEqualTo(1);
    assertThat(receivedNumbers()).containsExactly(1L, 2L);
    assertThatThrownBy(() -> FaultRule.requests().whenAnswer(r -> true))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aLimitedRuleActsOnItsFirstMessagesOnly() {
    FaultRule rule =
        transport
            .faults()
            .add(FaultRule.requests().ofCase(Request.PayloadCase.LOG_READ).limit(2).drop());
    assertThat(failure(client.call(server.endpoint(), Messages.numbered(1))))
        .isInstanceOf(RpcTimeoutException.class);
    assertThat(failure(client.call(server.endpoint(), Messages.numbered(2))))
        .isInstanceOf(RpcTimeoutException.class);
    assertThat(Messages.number(client.call(server.endpoint(), Messages.numbered(3)).join()))
        .isEqualTo(3);
    assertThat(rule.hits()).isEqualTo(2);
    assertThat(receivedNumbers()).containsExactly(3L);
    assertThatThrownBy(() -> FaultRule.requests().limit(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aDelayedRequestArrivesNoSoonerThanTheDelay() {
    RpcClient patient = transport.newClient(ClientOptions.defaults());
    transport
        .faults()
        .add(FaultRule.requests().to(server.endpoint()).delay(Duration.ofMillis(250)));
    long start = System.nanoTime();
    assertThat(patient.call(server.endpoint(), Messages.ping()).join().hasPing()).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(250));
  }

  @Test
  void aDelayLongerThanTheTimeoutTimesOut() {
    transport.faults().add(FaultRule.responses().delay(Duration.ofSeconds(2)));
    assertThat(failure(client.call(server.endpoint(), Messages.ping())))
        .isInstanceOf(RpcTimeoutException.class);
  }

  @Test
  void reorderHoldsABatchAndDeliversItReversed() {
    RpcClient patient = transport.newClient(ClientOptions.defaults());
    FaultRule rule = transport.faults().add(FaultRule.requests().to(server.endpoint()).reorder(3));
    CompletableFuture<Response> a = patient.call(server.endpoint(), Messages.numbered(1));
    CompletableFuture<Response> b = patient.call(server.endpoint(), Messages.numbered(2));
    assertThat(rule.heldCount()).isEqualTo(2);
    assertThat(echo.calls()).isZero();
    CompletableFuture<Response> c = patient.call(server.endpoint(), Messages.numbered(3));
    assertThat(Messages.number(a.join())).isEqualTo(1);
    assertThat(Messages.number(b.join())).isEqualTo(2);
    assertThat(Messages.number(c.join())).isEqualTo(3);
    assertThat(receivedNumbers()).containsExactly(3L, 2L, 1L);
  }

  @Test
  void removingAReorderRuleReleasesWhatItHolds() {
    RpcClient patient = transport.newClient(ClientOptions.defaults());
    FaultRule rule = transport.faults().add(FaultRule.requests().reorder(10));
    CompletableFuture<Response> a = patient.call(server.endpoint(), Messages.numbered(1));
    CompletableFuture<Response> b = patient.call(server.endpoint(), Messages.numbered(2));
    transport.faults().remove(rule);
    assertThat(Messages.number(a.join())).isEqualTo(1);
    assertThat(Messages.number(b.join())).isEqualTo(2);
    assertThat(receivedNumbers()).containsExactly(2L, 1L);
  }

  @Test
  void reorderedResponsesStillCompleteTheirOwnCalls() {
    RpcClient patient = transport.newClient(ClientOptions.defaults());
    // Held until released by hand: the fourth response must not complete its call before this
    // thread has attached the callback that records the order.
    FaultRule reorder = transport.faults().add(FaultRule.responses().reorder(1000));
    List<CompletableFuture<Response>> calls = new ArrayList<>();
    List<Integer> completionOrder = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int i = 0; i < 4; i++) {
      int n = i;
      calls.add(
          patient
              .call(server.endpoint(), Messages.numbered(i))
              .whenComplete((r, e) -> completionOrder.add(n)));
    }
    await().atMost(java.time.Duration.ofSeconds(10)).until(() -> reorder.heldCount() == 4);
    reorder.releaseHeld();
    for (int i = 0; i < 4; i++) {
      assertThat(Messages.number(calls.get(i).join())).isEqualTo(i);
    }
    assertThat(receivedNumbers()).containsExactly(0L, 1L, 2L, 3L);
    assertThat(completionOrder).containsExactly(3, 2, 1, 0);
  }

  @Test
  void aPartitionedEndpointIsUnreachableUntilHealed() {
    FaultRule cut = transport.faults().add(FaultRule.partition(server.endpoint()));
    assertThat(failure(client.call(server.endpoint(), Messages.ping())))
        .isInstanceOf(TransportException.class)
        .hasMessageContaining("partitioned")
        .matches(e -> ((TransportException) e).wasNeverSent(), "never sent");
    assertThat(echo.calls()).isZero();

    ServerBinding other = transport.bind(new Endpoint("node-b", 0), new EchoHandler("b"));
    assertThat(client.call(other.endpoint(), Messages.ping()).join().getPing().getNodeId())
        .isEqualTo("b");

    transport.faults().remove(cut);
    assertThat(client.call(server.endpoint(), Messages.ping()).join().hasPing()).isTrue();
  }

  @Test
  void aPartitionAddedWhileAResponseIsInFlightFailsTheCall() {
    RpcClient patient = transport.newClient(ClientOptions.defaults());
    FaultRule hold = transport.faults().add(FaultRule.responses().reorder(100));
    CompletableFuture<Response> call = patient.call(server.endpoint(), Messages.ping());
    await().atMost(Duration.ofSeconds(5)).until(() -> hold.heldCount() == 1);
    transport.faults().add(FaultRule.partition(server.endpoint()));
    transport.faults().remove(hold);
    assertThat(failure(call))
        .isInstanceOf(TransportException.class)
        .matches(e -> !((TransportException) e).wasNeverSent(), "may have been applied");
  }

  @Test
  void callsToAnUnboundEndpointFailWithTransportException() {
    assertThat(failure(client.call(new Endpoint("nowhere", 1), Messages.ping())))
        .isInstanceOf(TransportException.class)
        .hasMessageContaining("no server is listening")
        .matches(e -> ((TransportException) e).wasNeverSent(), "never sent");
    server.close();
    assertThat(failure(client.call(server.endpoint(), Messages.ping())))
        .isInstanceOf(TransportException.class);
  }

  @Test
  void theClientRefusesARequestOverItsFrameLimit() {
    RpcClient small =
        transport.newClient(new ClientOptions(Duration.ofSeconds(1), Duration.ofSeconds(1), 500));
    assertThat(failure(small.call(server.endpoint(), Messages.ofSize(1000))))
        .isInstanceOf(TooLargeException.class);
    assertThat(echo.calls()).isZero();
  }

  @Test
  void closingTheClientFailsItsOutstandingCalls() {
    RpcClient patient = transport.newClient(ClientOptions.defaults());
    transport.faults().add(FaultRule.requests().drop());
    CompletableFuture<Response> call = patient.call(server.endpoint(), Messages.ping());
    patient.close();
    assertThat(failure(call)).isInstanceOf(TransportException.class);
  }

  @Test
  void handlerFailuresBecomeTypedErrorResponses() {
    ServerBinding failing =
        transport.bind(
            new Endpoint("node-f", 0),
            r ->
                CompletableFuture.failedFuture(
                    new io.vcorfu.protocol.NotServingException("sequencer")));
    Response r = client.call(failing.endpoint(), Messages.token(0)).join();
    assertThatThrownBy(() -> io.vcorfu.protocol.Errors.check(r))
        .isInstanceOf(io.vcorfu.protocol.NotServingException.class);
  }
}
