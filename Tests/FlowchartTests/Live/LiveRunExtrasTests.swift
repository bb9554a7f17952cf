import Testing

@testable import Flowchart

// A live run keeps what only some runs need (snapshot requests, a held start) in one object
// made at first use, and its subscribers' ring behind the word that says who reads its
// events (see `LiveRunExtras`, `LiveRun.interest`): these tests check that a run that needs
// neither never makes them, and that the runs that do behave as before.

@Suite(.timeLimit(.minutes(5)))
struct LiveRunExtrasTests {
  /// Keeps every event an observer gets.
  private final class EventKeeper: Sendable {
    private let events = Lock<[RunEvent]>([])
    var observer: RunObserver {
      RunObserver(didReport: { event in self.events.withLock { $0.append(event) } })
    }
    var all: [RunEvent] { events.withLock { $0 } }
  }

  private func chart() throws -> Flowchart<Int> {
    try Flowchart<Int> {
      Action("Prepare") { $0 += 1 }
      Wait("Answer", for: Int.self) { $0 += $1 }
      Action("Done", isFinal: true) { $0 *= 10 }
    }
  }

  /// Waits until `isTrue` is false, for 10 s at most: a run's task, which may still be
  /// unwinding on another thread once its result is in, lets the run go a moment later.
  private func waitWhile(_ isTrue: () -> Bool) async throws {
    var waited = Duration.zero
    while isTrue(), waited < .seconds(10) {
      try await Task.sleep(for: .milliseconds(1))
      waited += .milliseconds(1)
    }
  }

  /// Starts a run at once, with an observer, and returns its handle once it waits at
  /// "Answer" (its task ended: the run is parked).
  private func startUntilWaiting(_ chart: Flowchart<Int>) async -> RunHandle<Int> {
    let (waits, waiting) = AsyncStream.makeStream(of: Void.self)
    let observer = RunObserver(didReport: { event in
      if case .waitingForInput = event.kind { waiting.yield() }
    })
    let handle = chart.start(with: 0, observer: observer)
    var iterator = waits.makeAsyncIterator()
    _ = await iterator.next()
    return handle
  }

  private func keepsExtras(_ handle: RunHandle<Int>) -> Bool {
    handle.run.state.withLock { $0.hasSnapshotRequests }
  }

  @Test func aRunNeverSnapshottedOrHeldMakesNoExtrasWhilePausedResumedParkedOrEnded()
    async throws
  {
    let handle = await startUntilWaiting(try chart())
    #expect(!keepsExtras(handle))
    handle.pause()
    #expect(handle.isPaused)
    handle.resume()
    #expect(!keepsExtras(handle))
    try handle.send(4, to: "Answer")
    let result = try await handle.result
    #expect(result.context == 50)
    #expect(!keepsExtras(handle))
  }

  @Test func aSnapshotOfAParkedRunMakesItsExtrasAndCapturesTheWait() async throws {
    let handle = await startUntilWaiting(try chart())
    let snapshot = try await handle.snapshot()
    #expect(keepsExtras(handle))
    #expect(snapshot.status == .waitingForInput(state: "Answer"))
    #expect(snapshot.id == handle.runID)
    try handle.send(4, to: "Answer")
    #expect(try await handle.result.context == 50)
  }

  @Test func aRunHeldAtItsStartKeepsItsStartInItsExtrasUntilResumed() async throws {
    let handle = try chart().start(with: 0, isPaused: true)
    #expect(keepsExtras(handle))
    #expect(try await handle.snapshot().status == .paused)
    let events = handle.events()
    handle.resume()
    try handle.send(4, to: "Answer")
    #expect(try await handle.result.context == 50)
    var kinds: [RunEvent.Kind] = []
    for await event in events { kinds.append(event.kind) }
    guard case .runStarted = kinds.first, case .runFinished = kinds.last else {
      Issue.record("the held run's events: \(kinds)")
      return
    }
  }

  @Test func twoSubscribersShareTheRunsRingAndEachReadsEveryEvent() async throws {
    let chart = try chart()
    let handle = chart.start(with: 0, isPaused: true)
    let first = handle.events(bufferingNewest: .max)
    let second = handle.events(bufferingNewest: .max)
    #expect(handle.run.interest.load(ordering: .relaxed) & ~LiveRun<Int>.Interest.mask != 0)
    // Sent before the run starts: the wait takes it from the mailbox and never waits.
    try handle.send(4, to: "Answer")
    handle.resume()
    _ = try await handle.result
    var firstLines: [String] = []
    for await event in first { firstLines.append(event.line) }
    var secondLines: [String] = []
    for await event in second { secondLines.append(event.line) }
    #expect(firstLines == secondLines)
    #expect(
      firstLines == [
        "Prepare: run started", "Prepare: entered", "Prepare: finished", "Answer: entered",
        "Answer: finished", "Done: entered", "Done: finished", "Done: run finished",
      ])
  }

  @Test func theEventsAnObserverGetsAreNamedFromTheGraphNotTheRun() async throws {
    let chart = try chart()
    let events = EventKeeper()
    let handle = chart.start(with: 0, isPaused: true, observer: events.observer)
    try handle.send(4, to: "Answer")
    handle.resume()
    #expect(try await handle.result.context == 50)
    let reported = events.all
    #expect(
      reported.map(\.line) == [
        "Prepare: run started", "Prepare: entered", "Prepare: finished", "Answer: entered",
        "Answer: finished", "Done: entered", "Done: finished", "Done: run finished",
      ])
    // With a payload (`run finished` carries its decision) or without.
    #expect(reported.allSatisfy { $0.details.source === chart.graph })
  }

  @Test func anObservedRunIsFreedOnceItEndsAndItsHandleIsGone() async throws {
    let chart = try chart()
    let kept = EventKeeper()
    weak var run: LiveRun<Int>?
    do {
      let handle = chart.start(with: 0, isPaused: true, observer: kept.observer)
      run = handle.run
      try handle.send(4, to: "Answer")
      handle.resume()
      _ = try await handle.result
    }
    // The events the observer kept hold the graph, not the run: the run is freed (once its
    // task, which may still be unwinding on another thread, lets it go), and they still
    // name their states.
    try await waitWhile { run != nil }
    #expect(run == nil)
    #expect(kept.all.map(\.stateName).first == "Prepare")
  }

  @Test func aSubscribedRunIsFreedOnceItEndsThoughItsReaderKeepsItsEvents() async throws {
    let chart = try chart()
    weak var run: LiveRun<Int>?
    var kept: [RunEvent] = []
    do {
      let handle = chart.start(with: 0, isPaused: true)
      run = handle.run
      let events = handle.events(bufferingNewest: .max)
      try handle.send(4, to: "Answer")
      handle.resume()
      _ = try await handle.result
      for await event in events { kept.append(event) }
    }
    // The stream and the handle are gone; the events a subscriber kept hold the graph, not
    // the run, whether they carry a payload (`run finished` carries its decision) or not.
    try await waitWhile { run != nil }
    #expect(run == nil)
    #expect(kept.allSatisfy { $0.details.source === chart.graph })
    #expect(kept.map(\.line).last == "Done: run finished")
  }
}
