import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// A paused run makes no step: what comes while it is paused (a delay's deadline, a value sent
// to a waiting state) leaves each flow where it stands until the run is resumed, so a
// snapshot of the paused run stays true for as long as the run stays paused, and a process
// that snapshots it, then cancels it, loses nothing and does nothing twice. Each test tells
// the old behaviour apart by where the snapshot finds the flow: a flow that went on would
// stand at the next state's boundary instead. Every clock is a `TestClock`: no test sleeps.

private let hour = Duration.seconds(3_600)

/// A dispatch whose first branch waits for an hour, then ships; its second branch bills.
// swift-format-ignore
private func coolingBranches() throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Dispatch("Both", isFinal: true, merge: mergeLedger) {
      Branch {
        Delay("Cool off", for: hour)
        Action("Ship", isFinal: true) { $0.notes.append("shipped") }
      }
      Branch { Action("Bill", isFinal: true) { $0.notes.append("billed") } }
    }
  }
}

/// A run waiting for an answer at its top level.
// swift-format-ignore
private func answering() throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Wait("Answer", for: Int.self) { $0.total += $1 }
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

/// A subflow whose inner run waits for an hour, then charges (within `timeout`, when
/// given); then the run ships.
// swift-format-ignore
private func coolingSubflow(timeout: Duration? = nil) throws -> Flowchart<Ledger> {
  let inner = try Flowchart<Ledger> {
    Delay("Cool off", for: hour)
    Action("Charge", isFinal: true) { $0.notes.append("charged") }
  }
  return try Flowchart<Ledger> {
    if let timeout {
      Subflow("Pay", running: inner, context: .whole).timeout(timeout)
    } else {
      Subflow("Pay", running: inner, context: .whole)
    }
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

/// The names of the states the run decides at, in order, once its events end. Make it
/// before the run is resumed from its start.
private func decisions(of handle: RunHandle<Ledger>) -> Task<[String], Never> {
  let events = handle.events(bufferingNewest: .max)
  return Task {
    var names: [String] = []
    for await event in events {
      if case .stateDecided = event.kind { names.append(event.stateName) }
    }
    return names
  }
}

/// Starts `chart`, pauses it once a flow waits for input, and sends 5 to "Answer", which
/// the paused run keeps.
private func pausedWithAnswerSent(_ chart: Flowchart<Ledger>) async throws -> RunHandle<Ledger> {
  let handle = chart.start(with: Ledger(), isPaused: true)
  var events = handle.events(bufferingNewest: .max).makeAsyncIterator()
  handle.resume()
  await waitsForInput(&events)
  handle.pause()
  #expect(try handle.send(5, to: "Answer"))
  return handle
}

@Suite(.timeLimit(.minutes(5)))
struct PausedRunStandsTests {
  @Test func aBranchWhoseDelayEndsWhileTheRunIsPausedStandsThereUntilResumed() async throws {
    let clock = TestClock()
    let deadline = clock.wallClockStart.advanced(by: hour)
    let handle = try coolingBranches().start(with: Ledger(), clock: clock, isPaused: true)
    let decided = decisions(of: handle)
    handle.resume()
    try await clock.waitForSleepers(1)
    handle.pause()
    clock.advance(by: hour)
    // The deadline passed: the branch stands at its delay, due, and the snapshot finds it
    // there (not at "Ship", where a branch that went on would stand).
    let snapshot = try roundTrip(try await handle.snapshot())
    #expect(snapshot.status == .paused)
    #expect(
      snapshot.flows.contains {
        $0.position == .waitingUntil("Both/Cool off") && $0.deadline == deadline
      })
    #expect(handle.delays.map(\.stateName) == ["Cool off"])
    handle.resume()
    let result = try await handle.result
    #expect(result.context.notes.sorted() == ["billed", "shipped"])
    #expect(await decided.value.filter { $0 == "Cool off" }.count == 1)
    #expect(handle.delays.isEmpty)

    // Another process resumes the snapshot past the deadline: the branch goes on at once,
    // and decides at the delay once.
    let later = TestClock(wallClockStart: deadline)
    let resumed = try coolingBranches().start(resuming: snapshot, clock: later, isPaused: true)
    let resumedDecisions = decisions(of: resumed)
    resumed.resume()
    #expect(try await resumed.result.context.notes.sorted() == ["billed", "shipped"])
    #expect(await resumedDecisions.value.filter { $0 == "Cool off" } == ["Cool off"])
  }

  @Test func cancellingARunWhoseBranchStandsAtADueDelayEndsItCancelled() async throws {
    let clock = TestClock()
    let handle = try coolingBranches().start(with: Ledger(), clock: clock, isPaused: true)
    let decided = decisions(of: handle)
    handle.resume()
    try await clock.waitForSleepers(1)
    handle.pause()
    clock.advance(by: hour)
    // Taken once the branch stands at its due delay.
    _ = try await handle.snapshot()
    handle.cancel()
    do {
      _ = try await handle.result
      Issue.record("a cancelled run ends with an error")
    } catch {
      #expect(error.kind == .cancelled)
    }
    #expect(!(await decided.value.contains("Cool off")))
  }

  @Test func aValueSentToABranchWaitingInAPausedRunIsTakenOnlyOnceResumed() async throws {
    let handle = try await pausedWithAnswerSent(try dispatchChart())
    // The branch still waits, the value kept for it: the snapshot holds both.
    let snapshot = try roundTrip(try await handle.snapshot())
    #expect(snapshot.status == .paused)
    #expect(snapshot.flows.contains { $0.position == .waitingForInput("Split/Answer") })
    #expect(snapshot.pendingInputs == ["Split/Answer"])
    // A second value is refused while the first waits, paused or not.
    #expect(try !handle.send(6, to: "Answer"))
    handle.resume()
    let result = try await handle.result
    #expect(result.context.total == 5)
    #expect(result.context.notes.sorted() == ["answered", "packed", "prepared", "shipped"])

    // Resumed elsewhere, the branch takes the value the snapshot kept, with nothing sent.
    let resumed = try dispatchChart().start(resuming: snapshot)
    #expect(try await resumed.result.context.total == 5)
  }

  @Test func aValueSentToARunParkedPausedAtAWaitingStateIsTakenOnlyOnceResumed() async throws {
    let handle = try await pausedWithAnswerSent(try answering())
    // Still parked at the state, the value kept (a flow that took it would have gone on
    // to "Ship", and stood there paused).
    let snapshot = try roundTrip(try await handle.snapshot())
    #expect(snapshot.position == "Answer")
    #expect(snapshot.flows[0].position == .waitingForInput("Answer"))
    #expect(snapshot.pendingInputs == ["Answer"])
    #expect(snapshot.context.total == 0)
    handle.resume()
    let result = try await handle.result
    #expect(result.context.total == 5)
    #expect(result.pathNames == ["Answer", "Ship"])

    let resumed = try answering().start(resuming: snapshot)
    let again = try await resumed.result
    #expect(again.context.total == 5)
    #expect(again.pathNames == ["Answer", "Ship"])
  }

  @Test func aSubflowWhoseInnerDelayEndsWhileTheRunIsPausedStandsThereUntilResumed() async throws {
    let clock = TestClock()
    let deadline = clock.wallClockStart.advanced(by: hour)
    let handle = try coolingSubflow().start(with: Ledger(), clock: clock, isPaused: true)
    handle.resume()
    try await clock.waitForSleepers(1)
    handle.pause()
    clock.advance(by: hour)
    // The inner flow stands at its due delay (not at "Charge").
    let snapshot = try roundTrip(try await handle.snapshot())
    #expect(snapshot.position == "Pay")
    let nested = try #require(snapshot.flows[0].nested)
    #expect(nested.position == .waitingUntil("Cool off"))
    #expect(nested.deadline == deadline)
    handle.resume()
    #expect(try await handle.result.context.notes == ["charged", "shipped"])

    let resumed = try coolingSubflow().start(
      resuming: snapshot, clock: TestClock(wallClockStart: deadline))
    #expect(try await resumed.result.context.notes == ["charged", "shipped"])
  }

  @Test func aTimeoutKeepsRunningWhileTheRunIsPaused() async throws {
    // A state in progress finishes while the run is paused, and a subflow is in progress
    // while its inner run stands: its timeout fails it (as the documentation says).
    let clock = TestClock()
    let handle = try coolingSubflow(timeout: hour / 2).start(
      with: Ledger(), clock: clock, isPaused: true)
    handle.resume()
    try await clock.waitForSleepers(2)
    handle.pause()
    clock.advance(by: hour)
    do {
      _ = try await handle.result
      Issue.record("the subflow's timeout fails the run")
    } catch {
      #expect(error.kind == .timedOut)
      #expect(error.stateName == "Pay")
    }
    #expect(handle.isPaused == false)
  }
}
