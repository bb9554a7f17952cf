import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots of a run standing inside a subflow whose chart has a dispatch: the inner run's
// branches are held at their boundaries like the run's own (or captured at a delay with its
// deadline, between two attempts, or finished with their results awaiting the join), and
// the resumed run ends as the uninterrupted one. No test sleeps: states pause the run, the
// clocks are `TestClock`s, and the tests wait for events and sleepers.

private let day = Duration.seconds(86_400)

/// The run a state's code pauses, once the test sets it, at the state the test names.
private final class Pauser: Sendable {
  private let state = Lock<(handle: RunHandle<Ledger>?, at: String?)>((nil, nil))

  func arm(_ handle: RunHandle<Ledger>, at name: String?) {
    state.withLock { $0 = (handle, name) }
  }

  /// Pauses the run when `name` is the state it was armed at (once).
  func reached(_ name: String) {
    let handle = state.withLock { locked -> RunHandle<Ledger>? in
      guard locked.at == name else { return nil }
      locked.at = nil
      return locked.handle
    }
    handle?.pause()
  }
}

/// A subflow's chart that dispatches two branches: "Quick" finishes at once (`quick` counts
/// the runs of its code); "Slow", which starts once "Quick" has ended, charges, waits
/// `wait`, and settles.
func innerDispatchChart(quick: Shared<Int> = Shared(0), wait: Duration = day) throws
  -> Flowchart<Ledger>
{
  try Flowchart<Ledger> {
    Action("Start") { (ledger: inout Ledger) async in ledger.notes.append("started") }
    Dispatch("Both", merge: mergeLedger) {
      Branch("Quick") {
        Action("Tally", isFinal: true) { (ledger: inout Ledger) async in
          quick.update { $0 += 1 }
          ledger.total &+= 2
          ledger.notes.append("quick")
        }
      }
      Branch("Slow", after: ["Quick"]) {
        Action("Charge") { (ledger: inout Ledger) async in ledger.total &+= 5 }
        Delay("Cool off", for: wait)
        Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
          ledger.notes.append("settled")
        }
      }
    }
    Action("Finish", isFinal: true) { (ledger: inout Ledger) async in
      ledger.notes.append("finished")
    }
  }
}

/// A chart whose "Pay" subflow runs `inner`.
func innerDispatchShop(_ inner: Flowchart<Ledger>) throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Open") { $0.notes.append("open") }
    Subflow("Pay", running: inner, context: .whole)
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

/// Waits for the run's next `paused` event.
private func waitForPause(_ events: inout RunEventStream.Iterator) async {
  while let event = await events.next() {
    if case .paused = event.kind { return }
  }
}

/// How the run ended.
private func outcome(of handle: RunHandle<Ledger>) async -> Result<RunResult<Ledger>, RunError> {
  do {
    return .success(try await handle.result)
  } catch {
    return .failure(error)
  }
}

@Suite(.timeLimit(.minutes(5)))
struct InnerDispatchSnapshotTests {
  @Test func aFinishedBranchAndOneAtADelayInsideASubflowAreCapturedAndResumed() async throws {
    let quick = Shared(0)
    let chart = try innerDispatchShop(innerDispatchChart(quick: quick))
    let clock = TestClock()
    let handle = chart.start(with: Ledger(), id: RunID("inner-1")!, chart: "inner", clock: clock)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(3_600))
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.formatVersion == RunSnapshot<Ledger>.currentFormatVersion)
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Pay")
    #expect(snapshot.pathKeys == ["Open", "Pay"])
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.position == .dispatching("Both"))
    #expect(nested.path == ["Start", "Both"])
    #expect(nested.branches.count == 2)
    let finished = try #require(nested.branches.first { $0.branch?.index == 0 })
    let waiting = try #require(nested.branches.first { $0.branch?.index == 1 })
    #expect(finished.position == .finished("Both/Tally", .done))
    #expect(finished.branch?.parent == 0)
    #expect(finished.branch?.dispatch == "Both")
    #expect(waiting.position == .waitingUntil("Both/Cool off"))
    #expect(waiting.deadline == clock.wallClockStart.advanced(by: day))
    #expect(waiting.path == ["Both/Charge", "Both/Cool off"])
    #expect(quick.value == 1)

    // Resumed an hour later: the delay waits only the rest of its day, and the finished
    // branch keeps its result (its code does not run again).
    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: .seconds(7_200)))
    let resumed = try chart.start(resuming: snapshot, clock: later)
    try await later.waitForSleepers(1)
    #expect(later.advance(by: day - .seconds(7_200) - .seconds(1)) == 0)
    #expect(later.advance(by: .seconds(1)) == 1)
    let result = try await resumed.result
    #expect(quick.value == 1)

    let plainClock = TestClock()
    async let plain = chart.run(with: Ledger(), clock: plainClock)
    try await plainClock.waitForSleepers(1)
    plainClock.advance(by: day)
    let expected = try await plain
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
    #expect(result.stepCount == expected.stepCount)
    #expect(
      result.context
        == Ledger(
          total: 9, notes: ["open", "started", "quick", "quick", "settled", "finished", "shipped"]
        ))
  }

  @Test func aDispatchInASubflowInADispatchBranchIsCapturedAtEveryLevel() async throws {
    let quick = Shared(0)
    let inner = try innerDispatchChart(quick: quick)
    let chart = try Flowchart<Ledger> {
      Action("Open") { $0.notes.append("open") }
      Dispatch("Outer", merge: mergeLedger) {
        Branch {
          Subflow("Pay", running: inner, context: .whole)
          Action("Paid", isFinal: true) { $0.notes.append("paid") }
        }
        Branch {
          Delay("Hold", for: .seconds(60))
          Action("Held", isFinal: true) { $0.notes.append("held") }
        }
      }
      Action("Ship", isFinal: true) { $0.notes.append("shipped") }
    }
    let plainClock = TestClock()
    async let plain = chart.run(with: Ledger(), clock: plainClock)
    try await plainClock.waitForSleepers(2)
    plainClock.advance(by: day)
    let expected = try await plain

    let clock = TestClock()
    let handle = chart.start(with: Ledger(), clock: clock)
    try await clock.waitForSleepers(2)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(snapshot.position == "Outer")
    #expect(snapshot.flows.count == 3)
    let pay = try #require(snapshot.flows.first { $0.nested != nil })
    #expect(pay.branch?.index == 0)
    let nested = try #require(pay.nested)
    #expect(nested.position == .dispatching("Both"))
    #expect(
      nested.branches.map(\.position) == [
        .finished("Both/Tally", .done), .waitingUntil("Both/Cool off"),
      ])

    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: day))
    let result = try await chart.start(resuming: snapshot, clock: later).result
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
    #expect(result.stepCount == expected.stepCount)
    #expect(quick.value == 2)
  }

  @Test func aBranchBetweenTwoAttemptsInsideASubflowKeepsItsAttemptAndDeadline() async throws {
    let attempts = Shared<[Int]>([])
    let backoff = Duration.seconds(600)
    let inner = try Flowchart<Ledger> {
      Dispatch("Both", merge: mergeLedger) {
        Branch {
          Action("Upload") { (ledger: inout Ledger) async throws in
            let attempt = RunInfo.current?.attempt ?? 0
            attempts.update { $0 += [attempt] }
            if attempt < 2 { throw Declined() }
            ledger.notes.append("uploaded at attempt \(attempt)")
          }
          .retry(2, backoff: .fixed(backoff))
          Action("Uploaded", isFinal: true) { (ledger: inout Ledger) async in ledger.total &+= 1 }
        }
        Branch {
          Delay("Cool off", for: day)
          Action("Cooled", isFinal: true) { (ledger: inout Ledger) async in ledger.total &+= 10 }
        }
      }
      Action("Done", isFinal: true) { (ledger: inout Ledger) async in ledger.notes.append("done") }
    }
    let chart = try innerDispatchShop(inner)
    let clock = TestClock()
    let handle = chart.start(with: Ledger(), clock: clock)
    // The delay and the backoff sleep.
    try await clock.waitForSleepers(2)
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    #expect(attempts.value == [1])
    let nested = try #require(snapshot.flows[0].nested)
    let retrying = try #require(nested.branches.first { $0.branch?.index == 0 })
    #expect(retrying.position == .entering("Both/Upload"))
    #expect(retrying.attempt == 2)
    #expect(retrying.deadline == clock.wallClockStart.advanced(by: backoff))

    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: day))
    let result = try await chart.start(resuming: snapshot, clock: later).result
    // Attempt 2 ran on resume, at once (its backoff had passed): not attempt 1 again.
    #expect(attempts.value == [1, 2])
    #expect(
      result.context
        == Ledger(total: 11, notes: ["open", "uploaded at attempt 2", "done", "shipped"]))
    #expect(result.pathNames == ["Open", "Pay", "Ship"])
  }

  @Test func aBranchThatFailedWhileItsDispatchRunsOnRefusesTheSnapshot() async throws {
    let inner = try Flowchart<Ledger> {
      Dispatch("Both", join: .toleratingFailures(1), merge: mergeLedger) {
        Branch {
          Action("Fail", isFinal: true) { (_: inout Ledger) async throws in throw Declined() }
        }
        Branch("Slow", after: []) {
          Delay("Cool off", for: day)
          Action("Cooled", isFinal: true) { (ledger: inout Ledger) async in ledger.total &+= 10 }
        }
      }
      Action("Done", isFinal: true)
    }
    let chart = try innerDispatchShop(inner)
    let clock = TestClock()
    let handle = chart.start(with: Ledger(), clock: clock)
    try await clock.waitForSleepers(1)
    // The branch that fails runs concurrently with the delay's, and the subflow's run
    // reports no event of its own: until it has run, a snapshot holds it before its state
    // (and lets it go on). So the request is made until it is refused, as it is once the
    // failure is recorded; the suite's time limit bounds the loop.
    var refusal: SnapshotError?
    while refusal == nil {
      do {
        _ = try await handle.snapshot()
        await Task.yield()
      } catch {
        refusal = error
      }
    }
    handle.cancel()
    #expect(
      refusal?.reason
        == "Branch 1 of dispatch 'Both' failed, and the dispatch runs on (its join policy tolerates the failure): a snapshot does not hold a branch's error. Take the snapshot once the dispatch has joined."
    )
  }

  /// For each state of the branches of a subflow's dispatch, the run paused after it,
  /// snapshotted, and resumed (through JSON) ends as the uninterrupted run.
  ///
  /// Where the pause lands after a branch's final state depends on whether the other branches
  /// have ended yet, which is the scheduler's choice: the dispatch may have joined. After a
  /// state that is not its branch's last, the branch cannot go on, so the pause lands inside
  /// the dispatch whatever the scheduler does; the first branch always has such a state.
  @Test(arguments: 0..<12)
  func resumingAtEveryBoundaryInsideASubflowsDispatchEndsAsTheUninterruptedRun(_ seed: UInt64)
    async throws
  {
    var generator = SeededGenerator(seed: 22_000 + seed)
    let pauser = Pauser()
    var names: [String] = []
    var notLastInTheirBranch: Set<String> = []
    var branches: [Branch<Ledger>] = []
    for branch in 1...Int.random(in: 2...3, using: &generator) {
      var declarations: [Declaration<Ledger>] = []
      let count = Int.random(in: (branch == 1 ? 2 : 1)...3, using: &generator)
      for index in 1...count {
        let name = "B\(branch).\(index)"
        let amount = Int.random(in: 1...9, using: &generator)
        names.append(name)
        if index < count { notLastInTheirBranch.insert(name) }
        declarations.append(
          Action(name, isFinal: index == count) { (ledger: inout Ledger) async in
            ledger.total &+= amount
            ledger.notes.append(name)
            pauser.reached(name)
          }.declaration)
      }
      branches.append(Branch { declarations })
    }
    let inner = try Flowchart<Ledger> {
      Action("Start") { (ledger: inout Ledger) async in
        ledger.notes.append("started")
        pauser.reached("Start")
      }
      Dispatch("Split", merge: mergeLedger) { branches }
      Action("End", isFinal: true) { (ledger: inout Ledger) async in ledger.notes.append("end") }
    }
    let chart = try innerDispatchShop(inner)
    let expected = try await chart.run(with: Ledger())
    for name in ["Start"] + names {
      let handle = chart.start(with: Ledger(), isPaused: true)
      var events = handle.events().makeAsyncIterator()
      pauser.arm(handle, at: name)
      handle.resume()
      await waitForPause(&events)
      let snapshot = try roundTrip(try await handle.snapshot())
      handle.cancel()
      #expect(snapshot.status == .paused, "paused after \(name)")
      if notLastInTheirBranch.contains(name) {
        #expect(
          snapshot.flows[0].nested?.position == .dispatching("Split"), "paused after \(name)")
      }
      let resumed = try chart.start(resuming: snapshot)
      switch await outcome(of: resumed) {
      case .success(let result):
        #expect(result.context == expected.context, "paused after \(name)")
        #expect(result.pathNames == expected.pathNames, "paused after \(name)")
        #expect(result.stepCount == expected.stepCount, "paused after \(name)")
      case .failure(let error):
        Issue.record("paused after \(name): \(error)")
      }
    }
  }

  @Test func pausingARunPausesTheBranchesOfASubflowsDispatch() async throws {
    let pauser = Pauser()
    let ran = Shared<[String]>([])
    let inner = try Flowchart<Ledger> {
      Dispatch("Split", merge: mergeLedger) {
        Branch {
          Action("A1") { (_: inout Ledger) async in
            ran.update { $0 += ["A1"] }
            pauser.reached("A1")
          }
          Action("A2", isFinal: true) { (_: inout Ledger) async in ran.update { $0 += ["A2"] } }
        }
        Branch {
          Action("B1") { (_: inout Ledger) async in ran.update { $0 += ["B1"] } }
          Action("B2", isFinal: true) { (_: inout Ledger) async in ran.update { $0 += ["B2"] } }
        }
      }
      Action("End", isFinal: true)
    }
    let chart = try innerDispatchShop(inner)
    let handle = chart.start(with: Ledger(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    pauser.arm(handle, at: "A1")
    handle.resume()
    await waitForPause(&events)
    // Every flow stands (the snapshot waits for that): none runs past its boundary while
    // the run is paused.
    let snapshot = try await handle.snapshot()
    #expect(snapshot.status == .paused)
    let before = ran.value
    #expect(!before.contains("A2"))
    let again = try await handle.snapshot()
    #expect(ran.value == before)
    #expect(again.flows[0].nested?.branches.count == snapshot.flows[0].nested?.branches.count)
    handle.resume()
    let result = try await handle.result
    #expect(result.pathNames == ["Open", "Pay", "Ship"])
    #expect(Set(ran.value) == ["A1", "A2", "B1", "B2"])
  }
}

@Suite(.timeLimit(.minutes(5)))
struct MapDispatchSnapshotTests {
  @Test func theElementsOfAMapWhoseChartDispatchesAreCapturedInsideTheirDispatches()
    async throws
  {
    let quick = Shared(0)
    let inner = try innerDispatchChart(quick: quick)
    let chart = try Flowchart<Basket> {
      Action("Open") { $0.notes.append("open") }
      Map("Charge each", over: { $0.items }, running: inner, maxConcurrency: 2) {
        basket, results in
        basket.totals = results.outputs.map(\.total)
        basket.notes += results.outputs.flatMap(\.notes)
      }
      Action("Close", isFinal: true) { $0.notes.append("closed") }
    }
    let start = Basket(items: (1...3).map { Ledger(total: $0 * 100) })
    let plainClock = TestClock()
    async let plain = chart.run(with: start, clock: plainClock)
    // The first two elements wait at once, then the third.
    try await plainClock.waitForSleepers(2)
    plainClock.advance(by: day)
    try await plainClock.waitForSleepers(1)
    plainClock.advance(by: day)
    let expected = try await plain
    #expect(quick.value == 3)

    // Two elements run at once: each stands in its dispatch, "Quick" finished and "Slow"
    // at its delay.
    let clock = TestClock()
    let handle = chart.start(with: start, clock: clock)
    try await clock.waitForSleepers(2)
    let snapshot = try JSONDecoder().decode(
      RunSnapshot<Basket>.self, from: JSONEncoder().encode(try await handle.snapshot()))
    handle.cancel()
    let map = try #require(snapshot.flows[0].map)
    #expect(map.running.map(\.index) == [0, 1])
    for (_, run) in map.running {
      #expect(run.position == .dispatching("Both"))
      #expect(
        run.branches.map(\.position) == [
          .finished("Both/Tally", .done), .waitingUntil("Both/Cool off"),
        ])
    }
    #expect(quick.value == 5)

    // Resumed a day later: the two delays have passed, the third element runs whole.
    let later = TestClock(wallClockStart: clock.wallClockStart.advanced(by: day))
    let resumed = try chart.start(resuming: snapshot, clock: later)
    try await later.waitForSleepers(1)
    later.advance(by: day)
    let result = try await resumed.result
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
    // Only the third element's "Quick" ran again.
    #expect(quick.value == 6)
  }
}

/// The chart of the stored run inside a subflow's dispatch (wrapping arithmetic: the hostile
/// snapshot tests resume mutated copies of it).
func storedInnerDispatchChart() throws -> Flowchart<Ledger> {
  try innerDispatchShop(innerDispatchChart(wait: .seconds(3_600)))
}

@Suite(.timeLimit(.minutes(5)))
struct StoredInnerDispatchSnapshotTests {
  /// `inside-subflow-dispatch.json`, written by this version (format 2): a run standing in
  /// subflow "Pay", whose inner run stands in dispatch "Both": branch "Quick" finished, its
  /// result awaiting the join, and branch "Slow" waiting at its delay, 20 minutes into its
  /// hour. To write it again:
  /// `FLOWCHART_WRITE_SNAPSHOT_FIXTURES=1 swift test --filter StoredInnerDispatchSnapshotTests`.
  @Test func aStoredSnapshotInsideASubflowsDispatchResumesWaitingOnlyTheRest() async throws {
    let snapshot = try await storedSnapshot("inside-subflow-dispatch", of: Ledger.self) {
      let clock = TestClock()
      let run = try storedInnerDispatchChart().start(
        with: Ledger(total: 0, notes: ["kept"]), id: RunID("stored-run-6")!, chart: "stored",
        clock: clock)
      try await clock.waitForSleepers(1)
      clock.advance(by: .seconds(1_200))
      defer { run.cancel() }
      return try await run.snapshot()
    }
    let deadline = TestClock().wallClockStart.advanced(by: .seconds(3_600))
    #expect(snapshot.formatVersion == 2)
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Pay")
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.position == .dispatching("Both"))
    #expect(
      nested.branches.map(\.position) == [
        .finished("Both/Tally", .done), .waitingUntil("Both/Cool off"),
      ])
    #expect(nested.branches[1].deadline == deadline)
    // Resumed 50 minutes after the run started: 10 minutes are left.
    let clock = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(600)))
    let run = try storedInnerDispatchChart().start(
      resuming: snapshot, chart: "stored", clock: clock)
    try await clock.waitForSleepers(1)
    #expect(clock.advance(by: .seconds(599)) == 0)
    #expect(clock.advance(by: .seconds(1)) == 1)
    let result = try await run.result
    let expected = Ledger(
      total: 9,
      notes: ["kept", "open", "started", "quick", "quick", "settled", "finished", "shipped"])
    #expect(result.pathNames == ["Open", "Pay", "Ship"])
    #expect(result.context == expected)
    // Resumed after the deadline: it goes on at once.
    let late = TestClock(wallClockStart: deadline)
    let ended = try await storedInnerDispatchChart().resume(
      from: snapshot, chart: "stored", clock: late)
    #expect(ended.context == expected)
  }
}
