import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots of runs with several flows: a run standing in a dispatch is captured as a
// barrier (each branch at its next boundary, waiting in its task, at a delay, or finished),
// written in format 2, and resumed with the dispatch rebuilt. Nothing depends on timing: a
// state's code pauses the run, a value is sent when the run reports it waits, and the
// clocks are `TestClock`s.

/// Folds a branch's ledger into the dispatching flow's: what the branch added.
@Sendable func mergeLedger(_ context: inout Ledger, _ branch: Ledger, _ original: Ledger) {
  context.total += branch.total - original.total
  context.notes += branch.notes.dropFirst(original.notes.count)
}

/// A dispatch whose first branch waits for input and whose second finishes at once; `packed`
/// counts the runs of the second branch's code.
func dispatchChart(packed: Shared<Int> = Shared(0)) throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Prepare") { $0.notes.append("prepared") }
    Dispatch("Split", merge: mergeLedger) {
      Branch {
        Wait("Answer", for: Int.self) { $0.total += $1 }
        Action("Record", isFinal: true) { $0.notes.append("answered") }
      }
      Branch {
        Action("Pack", isFinal: true) { ledger in
          packed.update { $0 += 1 }
          ledger.notes.append("packed")
        }
      }
    }
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

/// Waits until the run reports a flow waiting for input.
func waitsForInput(_ events: inout RunEventStream.Iterator) async {
  await waitsForEvents(&events, [isWaitingForInput])
}

/// Waits until the run has reported an event that matches each of `expected`, in any order.
/// A dispatch's branches run concurrently: one branch waiting for input says nothing of
/// whether another has run yet, so a test that expects both waits for both.
func waitsForEvents(
  _ events: inout RunEventStream.Iterator, _ expected: [(RunEvent) -> Bool]
) async {
  var pending = expected
  while !pending.isEmpty, let event = await events.next() {
    if let matched = pending.firstIndex(where: { $0(event) }) { pending.remove(at: matched) }
  }
}

/// An event of a flow waiting for input.
func isWaitingForInput(_ event: RunEvent) -> Bool {
  if case .waitingForInput = event.kind { true } else { false }
}

/// The event of the end of branch `branch` (its position from zero) of `dispatch`.
func endsBranch(_ branch: Int, of dispatch: String) -> (RunEvent) -> Bool {
  { event in
    if case .branchEnded(let index) = event.kind {
      index == branch && event.stateName == dispatch
    } else {
      false
    }
  }
}

@Suite(.timeLimit(.minutes(5)))
struct DispatchSnapshotTests {
  @Test func aBranchWaitingForInputAndAFinishedOneAreCapturedAndResumed() async throws {
    let packed = Shared(0)
    let chart = try dispatchChart(packed: packed)
    let handle = chart.start(with: Ledger(), isPaused: true)
    var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
    handle.resume()
    await waitsForEvents(&events, [isWaitingForInput, endsBranch(1, of: "Split")])
    let snapshot = try roundTrip(try await handle.snapshot())
    #expect(snapshot.formatVersion == 3)
    #expect(snapshot.status == .waitingForInput(state: "Answer"))
    #expect(snapshot.position == "Split")
    #expect(snapshot.context == Ledger(total: 0, notes: ["prepared"]))
    #expect(snapshot.pathKeys == ["Prepare", "Split"])
    #expect(snapshot.branchPositions == ["Split/Answer", "Split/Pack"])
    // The run went on as it was: it still waits, and takes its value.
    try handle.send(5, to: "Answer")
    let original = try await handle.result
    #expect(packed.value == 1)

    let resumed = try chart.start(resuming: snapshot)
    try resumed.send(5, to: "Answer")
    let result = try await resumed.result
    #expect(result.context == original.context)
    #expect(result.pathNames == original.pathNames)
    #expect(result.stepCount == original.stepCount)
    #expect(
      result.context == Ledger(total: 5, notes: ["prepared", "answered", "packed", "shipped"]))
    // The finished branch kept its result: its code did not run again.
    #expect(packed.value == 1)
  }

  @Test func aResumedDispatchWaitsForTheValueAgainAndIsSnapshottedAgain() async throws {
    let chart = try dispatchChart()
    let handle = chart.start(with: Ledger(), isPaused: true)
    var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
    handle.resume()
    await waitsForEvents(&events, [isWaitingForInput, endsBranch(1, of: "Split")])
    let first = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let resumed = try chart.start(resuming: first, isPaused: true)
    var resumedEvents = resumed.events(bufferingNewest: .max).makeAsyncIterator()
    // Held at its start: the snapshot holds every flow where the first one did.
    let held = try roundTrip(try await resumed.snapshot())
    #expect(held.status == .paused)
    #expect(held.branchPositions == first.branchPositions)
    resumed.resume()
    await waitsForInput(&resumedEvents)
    let second = try roundTrip(try await resumed.snapshot())
    #expect(second.status == .waitingForInput(state: "Answer"))
    #expect(second.branchPositions == first.branchPositions)
    #expect(second.stepCount == first.stepCount)
    try resumed.send(2, to: "Answer")
    #expect(try await resumed.result.context.total == 2)
  }

  @Test func aBranchAtADelayKeepsItsDeadline() async throws {
    let chart = try Flowchart<Ledger> {
      Dispatch("Split", isFinal: true, merge: mergeLedger) {
        Branch {
          Delay("Cool off", for: .seconds(3_600))
          Action("Ship", isFinal: true) { $0.notes.append("shipped") }
        }
        Branch {
          Action("Bill", isFinal: true) { $0.total += 3 }
        }
      }
    }
    let clock = TestClock()
    let handle = chart.start(with: Ledger(), clock: clock, isPaused: true)
    var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
    handle.resume()
    try await clock.waitForSleepers(1)
    await waitsForEvents(&events, [endsBranch(1, of: "Split")])
    clock.advance(by: .seconds(1_200))
    let snapshot = try roundTrip(try await handle.snapshot())
    handle.cancel()
    let deadline = TestClock().wallClockStart.advanced(by: .seconds(3_600))
    #expect(snapshot.status == .waitingUntil(deadline, state: "Cool off"))
    #expect(snapshot.branchPositions == ["Split/Cool off", "Split/Bill"])
    // Resumed ten minutes before the deadline: it waits only those.
    let later = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(600)))
    let resumed = try chart.start(resuming: snapshot, clock: later)
    try await later.waitForSleepers(1)
    #expect(later.advance(by: .seconds(599)) == 0)
    #expect(later.advance(by: .seconds(1)) == 1)
    let result = try await resumed.result
    #expect(result.context == Ledger(total: 3, notes: ["shipped"]))
    #expect(result.pathNames == ["Split", "Cool off", "Ship", "Bill"])
    // Resumed after the deadline: it goes on at once.
    let late = TestClock(wallClockStart: deadline.advanced(by: .seconds(1)))
    let ended = try await chart.resume(from: snapshot, clock: late)
    #expect(ended.context == result.context)
    #expect(late.now.offset == .zero)
  }

  @Test func aRunPausedInsideABranchIsCapturedPausedAndResumes() async throws {
    let pauser = Shared<RunHandle<Ledger>?>(nil)
    let chart = try Flowchart<Ledger> {
      Dispatch("Split", merge: mergeLedger) {
        Branch {
          Action("Load") { (ledger: inout Ledger) async in
            ledger.total += 1
            pauser.value?.pause()
          }
          Action("Store", isFinal: true) { $0.total += 10 }
        }
        Branch {
          Action("Count", isFinal: true) { $0.total += 100 }
        }
      }
      Action("End", isFinal: true) { $0.notes.append("end") }
    }
    let handle = chart.start(with: Ledger(), isPaused: true)
    pauser.set(handle)
    var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
    handle.resume()
    while let event = await events.next() {
      if case .paused = event.kind { break }
    }
    let snapshot = try roundTrip(try await handle.snapshot())
    #expect(snapshot.status == .paused)
    #expect(snapshot.position == "Split")
    #expect(snapshot.branchPositions.first == "Split/Store")
    handle.resume()
    let original = try await handle.result
    #expect(original.context == Ledger(total: 111, notes: ["end"]))
    let resumed = try await chart.resume(from: snapshot)
    #expect(resumed.context == original.context)
    #expect(resumed.pathNames == original.pathNames)
    #expect(resumed.stepCount == original.stepCount)
  }

  @Test func aNestedDispatchIsCapturedWithItsBranches() async throws {
    let chart = try Flowchart<Ledger> {
      Dispatch("Outer", isFinal: true, merge: mergeLedger) {
        Branch {
          Dispatch("Inner", merge: mergeLedger) {
            Branch {
              Wait("Answer", for: Int.self, isFinal: true) { $0.total += $1 }
            }
            Branch {
              Action("Inner pack", isFinal: true) { $0.notes.append("inner") }
            }
          }
          Action("After inner", isFinal: true) { $0.notes.append("after") }
        }
        Branch {
          Action("Outer pack", isFinal: true) { $0.notes.append("outer") }
        }
      }
    }
    let handle = chart.start(with: Ledger(), isPaused: true)
    var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
    handle.resume()
    await waitsForEvents(
      &events,
      [isWaitingForInput, endsBranch(1, of: "Inner"), endsBranch(1, of: "Outer")])
    let snapshot = try roundTrip(try await handle.snapshot())
    #expect(snapshot.position == "Outer")
    #expect(
      snapshot.branchPositions == [
        "Outer/Inner", "Outer/Inner/Answer", "Outer/Inner/Inner pack", "Outer/Outer pack",
      ])
    try handle.send(4, to: "Answer")
    let original = try await handle.result
    let resumed = try chart.start(resuming: snapshot)
    try resumed.send(4, to: "Answer")
    let result = try await resumed.result
    #expect(result.context == original.context)
    #expect(result.pathNames == original.pathNames)
    #expect(result.context == Ledger(total: 4, notes: ["inner", "after", "outer"]))
  }

  @Test func aDispatchWhoseBranchesChangedIsRefusedNamingIt() async throws {
    let handle = try dispatchChart().start(with: Ledger(), isPaused: true)
    var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
    handle.resume()
    await waitsForInput(&events)
    let snapshot = try await handle.snapshot()
    handle.cancel()
    let changed = try Flowchart<Ledger> {
      Action("Prepare") { $0.notes.append("prepared") }
      Dispatch("Split", merge: mergeLedger) {
        Branch {
          Wait("Answer", for: Int.self) { $0.total += $1 }
          Action("Record", isFinal: true) { $0.notes.append("answered") }
        }
        Branch {
          Action("Pack", isFinal: true) { $0.notes.append("packed") }
        }
        Branch {
          Action("Insure", isFinal: true) { $0.notes.append("insured") }
        }
      }
      Action("Ship", isFinal: true) { $0.notes.append("shipped") }
    }
    let error = try #require(throws: ResumeError.self) { try changed.start(resuming: snapshot) }
    #expect(error.misfits.map(\.position) == ["Split"])
    #expect(
      error.misfits.first?.reason
        == "Dispatch 'Split', where the run runs the dispatch's branches, had the branches branch 1 → Split/Answer, branch 2 → Split/Pack when it started and now has branch 1 → Split/Answer, branch 2 → Split/Pack, branch 3 → Split/Insure: a dispatch whose branches changed since it started cannot go on; resume on a chart whose dispatch has those branches, or let the run join the dispatch before you change it."
    )
  }

  @Test func aBranchFailureTheDispatchToleratesIsRefusedNamingTheDispatch() async throws {
    let chart = try Flowchart<Ledger> {
      Dispatch("Split", isFinal: true, join: .toleratingFailures(1), merge: mergeLedger) {
        Branch {
          Action("Break", isFinal: true) { _ in throw Declined() }
        }
        Branch {
          Wait("Answer", for: Int.self, isFinal: true) { $0.total += $1 }
        }
      }
    }
    let handle = chart.start(with: Ledger(), isPaused: true)
    var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
    handle.resume()
    await waitsForEvents(
      &events,
      [
        isWaitingForInput,
        { if case .stateFailed = $0.kind { $0.stateName == "Break" } else { false } },
      ])
    let error = await #expect(throws: SnapshotError.self) { try await handle.snapshot() }
    #expect(
      error?.reason
        == "Branch 1 of dispatch 'Split' failed, and the dispatch runs on (its join policy tolerates the failure): a snapshot does not hold a branch's error. Take the snapshot once the dispatch has joined."
    )
    // The run was let go on: it takes its value and ends.
    try handle.send(1, to: "Answer")
    #expect(try await handle.result.context.total == 1)
  }
}

/// Snapshots of several flows written by format 2 of this package, kept as files in
/// `Fixtures/` (see `StoredSnapshotTests.swift`): `dispatch-waiting.json`, a run standing in
/// "Split" with its first branch waiting for input at "Answer" and its second finished.
@Suite(.timeLimit(.minutes(5)))
struct StoredDispatchSnapshotTests {
  @Test func aStoredSnapshotOfADispatchDecodesAndResumes() async throws {
    let snapshot = try await storedSnapshot("dispatch-waiting", of: Ledger.self) {
      let run = try dispatchChart().start(
        with: Ledger(total: 0, notes: ["kept"]), id: RunID("stored-run-4")!, chart: "stored",
        clock: TestClock(), isPaused: true)
      var events = run.events(bufferingNewest: .max).makeAsyncIterator()
      run.resume()
      await waitsForInput(&events)
      defer { run.cancel() }
      return try await run.snapshot()
    }
    #expect(snapshot.formatVersion == 2)
    #expect(snapshot.id == RunID("stored-run-4"))
    #expect(snapshot.status == .waitingForInput(state: "Answer"))
    #expect(snapshot.branchPositions == ["Split/Answer", "Split/Pack"])
    let packed = Shared(0)
    let run = try dispatchChart(packed: packed).start(
      resuming: snapshot, chart: "stored", clock: TestClock())
    try run.send(3, to: "Answer")
    let result = try await run.result
    #expect(packed.value == 0)
    #expect(result.pathNames == ["Prepare", "Split", "Answer", "Record", "Pack", "Ship"])
    #expect(
      result.context
        == Ledger(total: 3, notes: ["kept", "prepared", "answered", "packed", "shipped"]))
  }
}
