import Testing

@testable import Flowchart

// A live run whose top-level flow waits for input parks: its task ends, and a value or a
// cancellation starts a new one from the waiting state (see `ParkedFlow.swift`). What a user
// sees must not change: these tests compare parked runs with runs that never wait.

private struct Tally: Sendable {
  var total = 0
  var note = ""
}

private func isWaiting(_ event: RunEvent) -> Bool {
  if case .waitingForInput = event.kind { return true }
  return false
}

extension RunHandle {
  /// Subscribes to this run, started paused, resumes it, and reads its events up to its
  /// first wait for input: returns that event and the events after it.
  fileprivate func resumeUntilWaiting() async -> (
    waiting: RunEvent?, rest: RunEventStream.Iterator
  ) {
    var events = events().makeAsyncIterator()
    resume()
    let waiting = await events.next(where: isWaiting)
    return (waiting, events)
  }
}

@Suite(.timeLimit(.minutes(5)))
struct LiveParkingTests {
  private func chart() throws -> Flowchart<Tally> {
    try Flowchart<Tally> {
      Action("Prepare") { $0.note = "ready" }
      Wait("Answer", for: Int.self) { $0.total += $1 }
      Condition("Big?") {
        $0.total > 3
      } yes: {
        Action("Celebrate", isFinal: true) { $0.note = "big" }
      } no: {
        Action("Shrug", isFinal: true) { $0.note = "small" }
      }
    }
  }

  /// Every event line of a run started paused, sending `value` to "Answer" when it waits
  /// (or before it starts, when `early`).
  private func eventLines(
    of chart: Flowchart<Tally>, sending value: Int, early: Bool
  ) async throws -> (lines: [String], result: RunResult<Tally>) {
    let handle = chart.start(with: Tally(), isPaused: true)
    if early { try handle.send(value, to: "Answer") }
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    var lines: [String] = []
    while let event = await events.next() {
      lines.append(event.line)
      if isWaiting(event) { try handle.send(value, to: "Answer") }
    }
    return (lines, try await handle.result)
  }

  @Test func aParkedRunReportsWhatARunThatNeverWaitsReportsAndTheWait() async throws {
    let chart = try chart()
    let parked = try await eventLines(of: chart, sending: 5, early: false)
    let direct = try await eventLines(of: chart, sending: 5, early: true)
    #expect(parked.lines.filter { !$0.hasSuffix("waiting for input") } == direct.lines)
    #expect(parked.lines.count == direct.lines.count + 1)
    #expect(parked.lines.contains("Answer: waiting for input"))
    // The waiting state is entered once, and counted once.
    #expect(parked.lines.filter { $0 == "Answer: entered" }.count == 1)
    #expect(parked.result.path == direct.result.path)
    #expect(parked.result.stepCount == 4)
    #expect(parked.result.context.total == 5)
    #expect(parked.result.context.note == "big")
  }

  /// Whether the run's top-level flow is parked (no task runs it), unwinding to park, or
  /// running.
  private func parking<Context>(of handle: RunHandle<Context>) -> String {
    handle.run.state.withLock { locked in
      switch locked.machine.phase {
      case .held, .running, .ended: locked.machine.hasTask ? "running" : "running, no task"
      case .unwinding: "unwinding"
      case .parked: locked.machine.hasTask ? "parked, with a task" : "parked"
      }
    }
  }

  @Test func onlyALoggedRunMakesTheLogsParts() async throws {
    // A parked run nobody logs holds one `nil` reference for its log (see BENCHMARKS.md).
    let plain = try chart().start(with: Tally(), isPaused: true)
    let logged = try chart().start(with: Tally(), isPaused: true, isLogged: true)
    #expect(plain.run.logging == nil)
    #expect(plain.log.lines.isEmpty)
    #expect(logged.run.logging != nil)
    for handle in [plain, logged] {
      _ = await handle.resumeUntilWaiting()
      try handle.send(1, to: "Answer")
      _ = try await handle.result
    }
    #expect(plain.log.lines.isEmpty)
    #expect(logged.log.lines.contains { $0.hasSuffix("'Answer' waits for input") })
  }

  @Test func aRunWaitingAtItsTopLevelHoldsNoTaskButOneWaitingInABranchDoes() async throws {
    let handle = try chart().start(with: Tally(), isPaused: true)
    _ = await handle.resumeUntilWaiting()
    // The flow decided to park before it reported the wait; its task then unwinds.
    while parking(of: handle) == "unwinding" { await Task.yield() }
    #expect(parking(of: handle) == "parked")
    try handle.send(1, to: "Answer")
    _ = try await handle.result

    let dispatching = try Flowchart<Tally> {
      Dispatch("Both", isFinal: true, merge: { $0.total += $1.total }) {
        Branch { Wait("Answer", for: Int.self, isFinal: true) { $0.total = $1 } }
        Branch { Action("Other", isFinal: true) { $0.total = 1 } }
      }
    }
    let branching = dispatching.start(with: Tally(), isPaused: true)
    _ = await branching.resumeUntilWaiting()
    // A branch's flow waits in its task: the dispatch awaits it.
    #expect(parking(of: branching) == "running")
    try branching.send(5, to: "Answer")
    #expect(try await branching.result.context.total == 6)
  }

  /// A wait in a loop: "Next" adds the value sent to the total until it reaches `total`.
  private func loop(until total: Int) throws -> Flowchart<Tally> {
    try Flowchart<Tally> {
      Wait("Next", for: Int.self) { $0.total += $1 }
      Condition("Enough?") {
        $0.total >= total
      } yes: {
        Action("Done", isFinal: true) { _ in }
      } no: {
        GoTo("Next")
      }
    }
  }

  /// Waits until the run's top-level flow is parked (it reported the wait before its task
  /// unwound).
  private func untilParked<Context>(_ handle: RunHandle<Context>) async {
    while parking(of: handle) != "parked" { await Task.yield() }
  }

  @Test func aSecondValueSentToAParkedWaitIsKeptForItsNextVisit() async throws {
    let chart = try loop(until: 3)
    let handle = chart.start(with: Tally(), isPaused: true)
    _ = await handle.resumeUntilWaiting()
    await untilParked(handle)
    // As with a flow waiting in its task: the first value goes to the flow, the second is
    // kept until the state is reached again.
    #expect(try handle.send(1, to: "Next"))
    #expect(try handle.send(2, to: "Next"))
    let result = try await handle.result
    #expect(result.context.total == 3)
    // Next, Enough?, Next, Enough?, Done.
    #expect(result.stepCount == 5)
  }

  @Test func aParkedRunCancelledThenSentAValueFailsAtTheWaitTakingNothing() async throws {
    let recorder = Recorder()
    let observer = RunObserver(didReport: { recorder.append($0.line) })
    let handle = try chart().start(with: Tally(), isPaused: true, observer: observer)
    _ = await handle.resumeUntilWaiting()
    await untilParked(handle)
    handle.cancel()
    _ = try? handle.send(5, to: "Answer")
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Answer")
    #expect(recorder.all.filter { $0.hasSuffix("waiting for input") }.count == 1)
    #expect(!recorder.all.contains { $0.hasPrefix("Answer: decided") })
  }

  @Test func theRunGoesOnAfterAParkedWaitAtItsOwnPriorityNotTheSenders() async throws {
    let seen = Box<TaskPriority>()
    let chart = try Flowchart<Tally> {
      Wait("Answer", for: Int.self) { $0.total = $1 }
      Action("Record", isFinal: true) { _ async in seen.set(Task.currentPriority) }
    }
    let handle = await Task(priority: .high) {
      chart.start(with: Tally(), isPaused: true)
    }.value
    _ = await handle.resumeUntilWaiting()
    await untilParked(handle)
    _ = try await Task.detached(priority: .background) {
      try handle.send(1, to: "Answer")
    }.value
    _ = try await handle.result
    #expect(seen.wrapped == .high)
  }

  @Test func aWaitInALoopParksEachTimeItIsReached() async throws {
    let chart = try loop(until: 10)
    let handle = chart.start(with: Tally(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    var sent = 0
    while await events.next(where: isWaiting) != nil {
      #expect(handle.positions == [chart.state(named: "Next")])
      #expect(handle.hasEnded == false)
      try handle.send(4, to: "Next")
      sent += 1
    }
    let result = try await handle.result
    #expect(sent == 3)
    #expect(result.context.total == 12)
    #expect(result.stepCount == 7)
  }

  @Test func cancellingAParkedRunFailsItAtTheWaitAndARetryWaitsThereAgain() async throws {
    let chart = try chart()
    let handle = chart.start(with: Tally(), isPaused: true)
    _ = await handle.resumeUntilWaiting()
    handle.cancel()
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Answer")
    #expect(handle.hasEnded)
    // A second cancel, and a pause or resume, of the ended run do nothing.
    handle.cancel()
    handle.pause()
    handle.resume()

    let retried = try handle.retry(isPaused: true)
    let waiting = await retried.resumeUntilWaiting().waiting
    #expect(waiting?.stateName == "Answer")
    try retried.send(1, to: "Answer")
    let result = try await retried.result
    #expect(result.context.note == "small")
    #expect(result.context.total == 1)
  }

  @Test func aParkedRunWhoseHandlesAreAllGoneIsCancelled() async throws {
    let waiting = Gate()
    let ended = Gate()
    let recorder = Recorder()
    let observer = RunObserver(didReport: { event in
      switch event.kind {
      case .waitingForInput:
        recorder.append("waiting")
        waiting.open()
      case .runFailed(let error):
        recorder.append("failed: \(error.kind)")
        ended.open()
      case .runFinished:
        recorder.append("finished")
        ended.open()
      default:
        break
      }
    })
    do {
      let handle = try chart().start(with: Tally(), observer: observer)
      await waiting.wait()
      #expect(handle.hasEnded == false)
    }
    // The handle is gone: nothing can send to the run, so it is cancelled.
    await ended.wait()
    #expect(recorder.all == ["waiting", "failed: cancelled"])
  }

  @Test func aRunPausedWhileParkedKeepsTheValueUntilResumed() async throws {
    let chart = try chart()
    let handle = chart.start(with: Tally(), isPaused: true)
    var events = await handle.resumeUntilWaiting().rest
    while parking(of: handle) == "unwinding" { await Task.yield() }
    handle.pause()
    #expect(handle.isPaused)
    // A paused run makes no step: the value is kept, and the flow stays parked.
    #expect(try handle.send(2, to: "Answer"))
    #expect(parking(of: handle) == "parked")
    #expect(handle.positions == [chart.state(named: "Answer")])
    handle.resume()
    // Resumed, the flow takes the value, then goes on.
    let decided = await events.next {
      if case .stateDecided = $0.kind { return true }
      return false
    }
    #expect(decided?.stateName == "Answer")
    let result = try await handle.result
    #expect(result.context.note == "small")
  }

  @Test func aValueForAnotherWaitingStateIsKeptWhileTheRunStaysParked() async throws {
    let chart = try Flowchart<Tally> {
      Wait("First", for: Int.self) { $0.total += $1 }
      Wait("Second", for: String.self, isFinal: true) { $0.note = $1 }
    }
    let handle = chart.start(with: Tally(), isPaused: true)
    let (first, afterFirst) = await handle.resumeUntilWaiting()
    var events = afterFirst
    #expect(first?.stateName == "First")
    #expect(try handle.send("later", to: "Second"))
    #expect(handle.positions == [chart.state(named: "First")])
    #expect(try handle.send(7, to: "First"))
    let result = try await handle.result
    #expect(result.context.total == 7)
    #expect(result.context.note == "later")
    // The second state took the value it was kept, without waiting.
    var rest: [String] = []
    while let event = await events.next() { rest.append(event.line) }
    #expect(!rest.contains("Second: waiting for input"))
  }

  /// Values sent at once after the start race the flow as it parks, for two waits in a row:
  /// whichever wins, each value is taken once.
  @Test func valuesThatRaceTheParkingAreTakenExactlyOnce() async throws {
    let chart = try Flowchart<Tally> {
      Wait("A", for: Int.self) { $0.total += $1 }
      Wait("B", for: Int.self) { $0.total += $1 * 100 }
      Action("End", isFinal: true) { $0.note = "done" }
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 1...200 {
        group.addTask {
          let handle = chart.start(with: Tally())
          if index.isMultiple(of: 2) {
            try handle.send(index, to: "B")
            try handle.send(index, to: "A")
          } else {
            try handle.send(index, to: "A")
            try handle.send(index, to: "B")
          }
          let result = try await handle.result
          #expect(result.context.total == index * 101)
          #expect(result.context.note == "done")
          #expect(result.stepCount == 3)
        }
      }
      try await group.waitForAll()
    }
  }

  @MainActor
  @Test func statesAfterAParkedWaitStillRunOnTheCallersActor() async throws {
    let chart = try Flowchart<Tally> {
      Wait("Answer", for: Int.self) { $0.total = $1 }
      Action("On the main actor", isFinal: true) { tally in
        // Stops the tests if the state does not run on the main actor.
        MainActor.preconditionIsolated("a synchronous state after a parked wait")
        tally.note = "main"
      }
    }
    let handle = chart.start(with: Tally(), isPaused: true)
    _ = await handle.resumeUntilWaiting()
    _ = try await Task.detached { try handle.send(9, to: "Answer") }.value
    let result = try await handle.result
    #expect(result.context.note == "main")
    #expect(result.context.total == 9)
  }
}
