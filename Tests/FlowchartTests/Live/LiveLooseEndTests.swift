import Flowchart
import FlowchartTesting
import Testing

/// How a run ended, as its observer heard it: for runs whose handle is gone.
private final class RunEnd: Sendable {
  private let state = Lock<(event: RunEvent?, waiter: CheckedContinuation<RunEvent, Never>?)>(
    (nil, nil))
  private let entered = Recorder()

  /// An observer that records the states entered and the run's last event.
  var observer: RunObserver {
    RunObserver(
      willEnterState: { [entered] event in entered.append(event.stateName) },
      didFinishRun: { event in self.ended(event) })
  }

  private func ended(_ event: RunEvent) {
    let waiter = state.withLock { state in
      state.event = event
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: event)
  }

  /// The states the run entered, in order.
  var enteredStates: [String] { entered.all }

  /// The run's last event, once it has ended.
  var event: RunEvent {
    get async {
      await withCheckedContinuation { continuation in
        let event = state.withLock { state in
          if state.event == nil { state.waiter = continuation }
          return state.event
        }
        if let event { continuation.resume(returning: event) }
      }
    }
  }

  /// The error the run failed with; `nil` when it finished.
  var error: RunError? {
    get async {
      if case .runFailed(let error) = await event.kind { return error }
      return nil
    }
  }
}

extension RunEvent {
  fileprivate var isWaitingForInput: Bool {
    if case .waitingForInput = kind { return true }
    return false
  }
}

/// Loose ends of live runs and modifiers: a pause between a retry's attempts, the retry of a
/// run after (or at) a dispatch that tolerated or cancelled branches, a run whose handles
/// are all gone, catch routes out of loops, and the key a multiple condition reports.
@Suite(.timeLimit(.minutes(5)))
struct LiveLooseEndTests {
  struct Order: Sendable, Equatable {
    var log: [String] = []
  }

  // MARK: - Pausing between attempts

  /// A chart whose "Upload" fails its first attempt and retries after 5 seconds.
  // swift-format-ignore
  private func flakyUpload(
    attempts: AttemptCounter, times: AttemptTimes, clock: TestClock
  ) throws -> Flowchart<Job> {
    try Flowchart<Job> {
      Action("Upload") { job in
        times.record(clock)
        if attempts.next() == 1 { throw Glitch.transient }
        job.log.append("uploaded")
      }
      .retry(1, backoff: .fixed(.seconds(5)))
      Action("Done", isFinal: true)
    }
  }

  @Test func aPauseDuringABackoffDelayHoldsTheNextAttemptUntilResumed() async throws {
    let clock = TestClock()
    let (attempts, times) = (AttemptCounter(), AttemptTimes())
    let chart = try flakyUpload(attempts: attempts, times: times, clock: clock)
    let handle = chart.start(with: Job(), clock: clock, isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    try await clock.waitForSleepers(1)  // the backoff delay
    handle.pause()
    clock.advance(by: .seconds(5))  // the delay runs out while the run is paused
    var lines: [String] = []
    while let event = await events.next() {
      lines.append(event.line)
      if event.isPaused { break }
    }
    // Paused between the attempts, not before "Done": the second attempt waits.
    #expect(attempts.value == 1)
    #expect(handle.positions.map { chart[$0].name } == ["Upload"])
    handle.resume()
    while let event = await events.next() { lines.append(event.line) }
    let result = try await handle.result
    #expect(result.context.log == ["uploaded"])
    // The delay kept counting while paused: the second attempt starts on resume, at 5s.
    #expect(times.all == [.zero, .seconds(5)])
    #expect(
      lines == [
        "Upload: run started", "Upload: entered",
        "Upload: attempt 1 failed: FlowchartTests.Glitch.transient",
        "Upload: attempt 2 after 5.000s", "Upload: paused", "Upload: resumed",
        "Upload: finished", "Done: entered", "Done: finished",
        "Done: run finished",
      ])
  }

  @Test func aRunCancelledWhilePausedBetweenAttemptsStopsThereAndCanBeRetried() async throws {
    let clock = TestClock()
    let (attempts, times) = (AttemptCounter(), AttemptTimes())
    let chart = try flakyUpload(attempts: attempts, times: times, clock: clock)
    let handle = chart.start(with: Job(), clock: clock, isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    try await clock.waitForSleepers(1)
    handle.pause()
    clock.advance(by: .seconds(5))
    _ = try #require(await events.next(where: \.isPaused))
    handle.cancel()
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Upload")
    #expect(error.description.contains("cancelled while paused in action 'Upload'"))
    #expect(error.description.contains("before its attempt 2."))
    #expect(attempts.value == 1)

    // The retried run runs the state again, from the context before it.
    let result = try await handle.retry(clock: clock).result
    #expect(attempts.value == 2)
    #expect(result.context.log == ["uploaded"])
  }

  @Test func aPausedDispatchHoldsABranchBetweenItsAttempts() async throws {
    let clock = TestClock()
    let attempts = AttemptCounter()
    let (prepareEntered, prepareMayFinish) = (Gate(), Gate())
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Dispatch("Both", isFinal: true) { order, branch in order.log += branch.log } branches: {
        Branch("Flaky") {
          Action("Upload", isFinal: true) { order in
            if attempts.next() == 1 { throw Glitch.transient }
            order.log.append("uploaded")
          }
          .retry(1, backoff: .fixed(.seconds(3)))
        }
        Branch("Steady") {
          Action("Prepare") { order async in
            prepareEntered.open()
            await prepareMayFinish.wait()
            order.log.append("prepared")
          }
          Action("Finish", isFinal: true) { $0.log.append("finished") }
        }
      }
    }
    let handle = chart.start(with: Order(), clock: clock, isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    await prepareEntered.wait()
    try await clock.waitForSleepers(1)  // "Upload"'s backoff delay
    handle.pause()
    clock.advance(by: .seconds(3))
    prepareMayFinish.open()
    // Each branch stops at its own next boundary: between attempts, and before "Finish".
    var pausedAt: Set<String> = []
    while pausedAt.count < 2, let event = await events.next(where: \.isPaused) {
      pausedAt.insert(event.stateName)
    }
    #expect(pausedAt == ["Upload", "Finish"])
    #expect(attempts.value == 1)
    handle.resume()
    let result = try await handle.result
    #expect(attempts.value == 2)
    #expect(result.context.log == ["uploaded", "prepared", "finished"])
  }

  // MARK: - Retrying around a dispatch that tolerated or cancelled branches

  @Test func aRunThatFailsAfterADispatchMetItsQuorumIsRetriedAfterTheDispatch() async throws {
    let fastMayFinish = Gate()
    let (slowStarts, uploads) = (AttemptCounter(), AttemptCounter())
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Dispatch("Mirrors", join: .firstSuccess) { order, branch in
        order.log += branch.log
      } branches: {
        Branch("Slow") {
          Action("Start slow") { order in
            _ = slowStarts.next()
            order.log.append("slow started")
          }
          Wait("Slow done", for: Int.self, isFinal: true) { order, _ in order.log.append("slow") }
        }
        Branch("Fast") {
          Action("Fetch fast", isFinal: true) { order async in
            await fastMayFinish.wait()
            order.log.append("fast")
          }
        }
      }
      Action("Upload", isFinal: true) { order in
        if uploads.next() == 1 { throw Glitch.transient }
        order.log.append("uploaded")
      }
    }
    let first = chart.start(with: Order(), isPaused: true)
    var events = first.events().makeAsyncIterator()
    first.resume()
    _ = try #require(await events.next(where: \.isWaitingForInput))
    fastMayFinish.open()  // "Fast" wins; "Slow", waiting, is cancelled
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.stateName == "Upload")

    let second = try first.retry(isPaused: true)
    let lines = await second.allEventLines()
    #expect(
      lines == [
        "Upload: run started", "Upload: entered", "Upload: finished",
        "Upload: run finished",
      ])
    let result = try await second.result
    // The dispatch is not run again: the cancelled branch stays cancelled, its changes
    // dropped, as the join left them.
    #expect(slowStarts.value == 1)
    #expect(result.context.log == ["fast", "uploaded"])
    #expect(
      result.path.map { chart[$0].name } == ["Mirrors", "Fetch fast", "Upload", "Upload"])
  }

  @Test func aRunThatFailsAfterADispatchToleratedAFailureIsRetriedAfterTheDispatch() async throws {
    let (checks, uploads) = (AttemptCounter(), AttemptCounter())
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Dispatch("Checks", maxConcurrency: 1, join: .toleratingFailures(1)) { order, branch in
        order.log += branch.log
      } branches: {
        Branch("Broken") {
          Action("Check A", isFinal: true) { order in
            _ = checks.next()
            order.log.append("a")
            throw Glitch.permanent
          }
        }
        Branch("Fine") { Action("Check B", isFinal: true) { $0.log.append("b") } }
      }
      Action("Upload", isFinal: true) { order in
        if uploads.next() == 1 { throw Glitch.transient }
        order.log.append("uploaded")
      }
    }
    let first = chart.start(with: Order())
    _ = try await #require(throws: RunError.self) { try await first.result }
    let result = try await first.retry().result
    // The tolerated failure is not retried: the dispatch decided without it.
    #expect(checks.value == 1)
    #expect(result.context.log == ["b", "uploaded"])
  }

  @Test func aDispatchWhoseReportThrewJoinsTheSameBranchesAgainWithoutRunningThem() async throws {
    let (checks, reports) = (AttemptCounter(), AttemptCounter())
    let reported = Recorder()
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Dispatch("Checks", isFinal: true, maxConcurrency: 1, join: .toleratingFailures(1)) {
        order, branch in order.log += branch.log
      } branches: {
        Branch("Broken") {
          Action("Check A", isFinal: true) { _ in
            _ = checks.next()
            throw Glitch.permanent
          }
        }
        Branch("Fine") { Action("Check B", isFinal: true) { $0.log.append("b") } }
      } report: { order, report in
        reported.append(report.branches.map { "\($0.name ?? "?") \($0.status)" }.joined(separator: ", "))
        if reports.next() == 1 { throw Glitch.transient }
        order.log.append("reported")
      }
    }
    let first = chart.start(with: Order())
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.stateName == "Checks")

    let second = try first.retry(isPaused: true)
    let lines = await second.allEventLines()
    let result = try await second.result
    #expect(checks.value == 1)
    #expect(result.context.log == ["b", "reported"])
    // The report says the same both times: the failure is still a failure.
    #expect(reported.all == ["Broken failed, Fine succeeded", "Broken failed, Fine succeeded"])
    #expect(
      lines == [
        "Checks: run started", "Checks: entered", "Checks: dispatch started",
        "Checks: branch 1 failed (thrown error), tolerated", "Checks: dispatch joined",
        "Checks: finished", "Checks: run finished",
      ])
  }

  @Test func aDispatchCancelledWithItsRunRetriesItsToleratedAndCancelledBranches() async throws {
    let (aCalls, bCalls, cCalls) = (AttemptCounter(), AttemptCounter(), AttemptCounter())
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Dispatch("Work", isFinal: true, join: .toleratingFailures(1)) { order, branch in
        order.log += branch.log
      } branches: {
        Branch("A") {
          Action("Do A", isFinal: true) { order in
            if aCalls.next() == 1 { throw Glitch.transient }
            order.log.append("a")
          }
        }
        Branch("B") {
          Action("Start B") { order in
            _ = bCalls.next()
            order.log.append("b started")
          }
          Wait("B done", for: Int.self, isFinal: true) { order, value in
            order.log.append("b \(value)")
          }
        }
        Branch("C") {
          Action("Do C", isFinal: true) { order in
            _ = cCalls.next()
            order.log.append("c")
          }
        }
      }
    }
    let first = chart.start(with: Order(), isPaused: true)
    var events = first.events().makeAsyncIterator()
    first.resume()
    // Cancelled once "A" has failed (tolerated), "C" has finished and "B" waits.
    var (aFailed, cEnded, bWaits) = (false, false, false)
    while !(aFailed && cEnded && bWaits), let event = await events.next() {
      if case .stateFailed = event.kind, event.stateName == "Do A" { aFailed = true }
      if case .branchEnded(2) = event.kind { cEnded = true }
      if event.isWaitingForInput { bWaits = true }
    }
    first.cancel()
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.kind == .cancelled)

    let second = try first.retry()
    try second.send(7, to: "B done")
    let result = try await second.result
    // "A" (failed, tolerated) runs again; "B" (cancelled) goes on from where it stopped;
    // "C" (finished) keeps its result.
    #expect([aCalls.value, bCalls.value, cCalls.value] == [2, 1, 1])
    #expect(result.context.log == ["a", "b started", "b 7", "c"])
  }

  // MARK: - A run whose handles are all gone

  /// A chart that waits for an approval, then ships.
  private func approval() throws -> Flowchart<Order> {
    try Flowchart<Order> {
      Wait("Approval", for: String.self) { order, name in order.log.append("approved by \(name)") }
      Action("Ship", isFinal: true) { $0.log.append("shipped") }
    }
  }

  @Test func aRunStartedPausedIsCancelledWhenItsLastHandleGoes() async throws {
    let chart = try Flowchart<Order> { Action("Only", isFinal: true) { $0.log.append("ran") } }
    let end = RunEnd()
    _ = chart.start(with: Order(), isPaused: true, observer: end.observer)
    let error = try #require(await end.error)
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Only")
    #expect(end.enteredStates.isEmpty)
  }

  @Test func aRunPausedAtABoundaryIsCancelledWhenItsLastHandleGoes() async throws {
    let (entered, mayFinish) = (Gate(), Gate())
    let chart = try Flowchart<Order> {
      Action("First") { order async in
        entered.open()
        await mayFinish.wait()
        order.log.append("first")
      }
      Action("Second", isFinal: true) { $0.log.append("second") }
    }
    let end = RunEnd()
    func startPauseAndLetGo() async {
      let handle = chart.start(with: Order(), observer: end.observer)
      await entered.wait()
      handle.pause()
    }
    await startPauseAndLetGo()
    mayFinish.open()  // "First" finishes; the run pauses before "Second", with no handle
    let error = try #require(await end.error)
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Second")
    #expect(end.enteredStates == ["First"])
  }

  @Test func aRunWaitingForInputIsCancelledWhenItsLastHandleGoes() async throws {
    let end = RunEnd()
    let chart = try approval()
    func startAndLetGoWhileItWaits() async {
      let handle = chart.start(with: Order(), isPaused: true, observer: end.observer)
      var events = handle.events().makeAsyncIterator()
      handle.resume()
      _ = await events.next(where: \.isWaitingForInput)
    }
    await startAndLetGoWhileItWaits()
    let error = try #require(await end.error)
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Approval")
  }

  @Test func aRunThatComesToWaitForInputWithoutAHandleIsCancelled() async throws {
    let end = RunEnd()
    _ = try approval().start(with: Order(), observer: end.observer)
    let error = try #require(await end.error)
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Approval")
  }

  @Test func aRunThatNeedsNothingFromOutsideGoesOnWithoutAHandle() async throws {
    let end = RunEnd()
    let mayFinish = Gate()
    let chart = try Flowchart<Order> {
      Action("Work") { order async in
        await mayFinish.wait()
        order.log.append("worked")
      }
      Action("Done", isFinal: true)
    }
    _ = chart.start(with: Order(), observer: end.observer)
    mayFinish.open()
    guard case .runFinished(let decision) = await end.event.kind else {
      Issue.record("The run did not finish")
      return
    }
    #expect(decision == .done)
    #expect(end.enteredStates == ["Work", "Done"])
  }

  @Test func aValueSentBeforeTheLastHandleWentIsStillTaken() async throws {
    let end = RunEnd()
    let chart = try approval()
    func startSendAndLetGo() throws {
      let handle = chart.start(with: Order(), isPaused: true, observer: end.observer)
      try handle.send("Ada", to: "Approval")
      handle.resume()
    }
    try startSendAndLetGo()
    guard case .runFinished = await end.event.kind else {
      Issue.record("The run did not finish")
      return
    }
    #expect(end.enteredStates == ["Approval", "Ship"])
  }

  // MARK: - Catch routes out of loops

  @Test func aLoopWhoseOnlyWayOutIsACatchRouteCompiles() throws {
    // swift-format-ignore
    let chart = try Flowchart<Job> {
      Action("Poll") { job in
        job.log.append("polled")
        if job.log.count == 3 { throw Glitch.permanent }
      }
      .catch(goTo: "Give up")
      Action("Wait a bit")
      GoTo("Poll")
      Action("Give up", isFinal: true) { $0.log.append("gave up") }
    }
    let result = try chart.runSynchronously(with: Job())
    // The third poll threw: the route starts from the context as it was before it.
    #expect(result.context.log == ["polled", "polled", "gave up"])
    #expect(result.finalStateName == "Give up")
  }

  @Test func aLoopWithoutACatchRouteOutIsStillRejected() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Job> {
        Action("Poll") { $0.log.append("polled") }
        Action("Wait a bit")
        GoTo("Poll")
        Action("Give up", isFinal: true)
      }
    }
    // "Give up" is unreachable too: nothing leads there without the catch route.
    expectProblems(
      error,
      [
        ExpectedProblem(.neverReachesFinalState, "Poll", line: line),
        ExpectedProblem(.unreachable, "Give up", line: line + 3),
      ])
  }

  @Test func aCatchRouteIntoAnotherClosedLoopLeavesOnlyThatLoopReported() {
    let line = #line + 8
    // swift-format-ignore
    let error = definitionError {
      try Flowchart<Job> {
        Action("Poll") { $0.log.append("polled") }
          .catch(goTo: "Spin")
        Action("Wait a bit")
        GoTo("Poll")
        Action("Spin")
        GoTo("Spin")
      }
    }
    expectOnlyProblem(
      error, .neverReachesFinalState, name: "Spin", line: line,
      saying: ["State 'Spin' loops forever"])
  }

  @Test func aLoopWhoseCatchRouteNamesNoStateIsReportedOnlyForTheName() {
    // swift-format-ignore
    let error = definitionError {
      try Flowchart<Job> {
        Action("Poll") { $0.log.append("polled") }
          .catch(goTo: "Give upp")
        Action("Wait a bit")
        GoTo("Poll")
        Action("Give up", isFinal: true)
      }
    }
    #expect(error?.problems.map(\.kind) == [.unknownName])
  }

  // MARK: - The key a multiple condition reports

  enum Route: Hashable, Sendable { case north, south }

  @Test func aMultipleConditionReportsItsKeyTypedWhenFinalAndAsTextOtherwise() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      MultipleCondition("Which way?") { _ in Route.north } exits: {
        Case(Route.north) {
          MultipleCondition("Then?", isFinal: true) { _ in Route.south }
        }
        Default { Action("Lost", isFinal: true) }
      }
    }
    let decisions = Lock<[Decision]>([])
    let handle = chart.start(
      with: Order(),
      observer: RunObserver(didFinishState: { event in
        if case .stateDecided(let decision) = event.kind {
          decisions.withLock { $0.append(decision) }
        }
      }))
    _ = try await handle.result
    let decided = decisions.withLock { $0 }
    try #require(decided.count == 2)
    // Not final: the text of the exit it took, as the tree prints it.
    #expect(decided[0].key(as: String.self) == "north")
    #expect(decided[0].key(as: Route.self) == nil)
    // Final: the key itself.
    #expect(decided[1].key(as: Route.self) == .south)
  }

  @Test func exitsThatLeadToOneStateReportTheFirstOfTheirKeys() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      MultipleCondition("Which?") { _ in "b" } exits: {
        Case("a") { GoTo("Shared") }
        Case("b") { GoTo("Shared") }
      }
      Action("Shared", isFinal: true)
    }
    let decisions = Lock<[Decision]>([])
    let handle = chart.start(
      with: Order(),
      observer: RunObserver(didFinishState: { event in
        if case .stateDecided(let decision) = event.kind, event.stateName == "Which?" {
          decisions.withLock { $0.append(decision) }
        }
      }))
    _ = try await handle.result
    // As documented: the compiled code returns the state, so the first exit's key is named.
    #expect(decisions.withLock { $0 } == [.key("a")])
  }
}
