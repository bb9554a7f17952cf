import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Two edges of snapshots inside subflows and maps that the random charts of
// `ResumeEquivalenceTests` found: a subflow's inner run held before its first state, and a
// map whose elements have all ended but whose flow has not yet left it. No test sleeps: runs
// pause from a subflow's mapping, wait on `TestClock`s, and the tests wait for events.

/// The run a subflow's `enter` mapping pauses, and how many times the mapping ran.
private final class EnterPauser: Sendable {
  private let state = Lock<(handle: RunHandle<Ledger>?, entered: Int)>((nil, 0))

  var entered: Int { state.withLock { $0.entered } }

  func arm(_ handle: RunHandle<Ledger>) { state.withLock { $0.handle = handle } }

  /// The mapping ran: pauses the armed run, once.
  func enter() {
    let handle = state.withLock { locked -> RunHandle<Ledger>? in
      locked.entered += 1
      defer { locked.handle = nil }
      return locked.handle
    }
    handle?.pause()
  }
}

@Suite(.timeLimit(.minutes(5)))
struct InnerRunEdgeSnapshotTests {
  /// Random chart seed 673 (and 91, 343, 660) of `ResumeEquivalenceTests`: a run paused as
  /// its flow entered a subflow was captured with the inner run entering its first state, a
  /// snapshot that then did not decode ("entered no state, so it stands nowhere").
  @Test func aSubflowHeldBeforeItsFirstStateIsCapturedThereAndResumes() async throws {
    let pauser = EnterPauser()
    let inner = try Flowchart<Ledger> {
      Action("Charge") { (ledger: inout Ledger) async in ledger.total &+= 5 }
      Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
        ledger.notes.append("settled")
      }
    }
    let chart = try Flowchart<Ledger> {
      Action("Open") { $0.notes.append("open") }
      Subflow(
        "Pay", running: inner,
        context: ContextMapping(
          enter: { ledger in
            pauser.enter()
            return ledger
          },
          leave: { $0 = $1 }))
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    let expected = try await chart.run(with: Ledger())
    let handle = chart.start(with: Ledger(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    pauser.arm(handle)
    handle.resume()
    while let event = await events.next() {
      if case .paused = event.kind { break }
    }
    let taken = try await handle.snapshot()
    handle.cancel()
    let nested = try #require(taken.flows[0].nested)
    #expect(taken.position == "Pay")
    #expect(nested.position == .entering("Charge"))
    #expect(nested.stepCount == 0)
    let snapshot = try roundTrip(taken)
    let entered = pauser.entered
    let result = try await chart.start(resuming: snapshot).result
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
    #expect(result.stepCount == expected.stepCount)
    // The inner run goes on where it stood: its context is not taken again.
    #expect(pauser.entered == entered)
  }

  /// Random chart seed 328 (and 149, 389, 789, …) of `ResumeEquivalenceTests`: a paused run
  /// whose map's last element ended as the snapshot was asked for was captured inside the
  /// map with every element done, and then, paused, still collected and decided at the map
  /// (and joined the dispatch around it) after the snapshot, so that the resumed run decided
  /// there again.
  @Test func aMapWhoseElementsAllEndedIsCapturedAfterItsFlowLeavesIt() async throws {
    let clock = TestClock()
    let weigh = try Flowchart<Ledger> {
      Action("Weigh", isFinal: true) { (ledger: inout Ledger) async throws in
        try await clock.sleep(for: .seconds(60))
        ledger.total &+= 1
      }
    }
    let chart = try Flowchart<Ledger> {
      Action("Open") { $0.notes.append("open") }
      Map(
        "Weigh each", over: { [Ledger(total: $0.total), Ledger(total: 10)] }, running: weigh,
        maxConcurrency: 1
      ) { ledger, results in
        ledger.total = results.outputs.reduce(ledger.total) { $0 &* 31 &+ $1.total }
      }
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    let handle = chart.start(with: Ledger(), clock: clock)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(60))
    // The last element runs its code; the paused run's snapshot waits for it.
    try await clock.waitForSleepers(1)
    handle.pause()
    async let taken = handle.snapshot()
    while handle.run.state.withLock({ $0.snapshots.waiters.isEmpty }) { await Task.yield() }
    clock.advance(by: .seconds(60))
    let snapshot = try roundTrip(try await taken)
    handle.cancel()
    #expect(snapshot.flows[0].map == nil)
    #expect(snapshot.position == "Close")
    #expect(snapshot.pathKeys == ["Open", "Weigh each"])
    #expect(snapshot.context.total == 42)
  }
}
