import FlowchartTesting
import Testing

@testable import Flowchart

// Delays (`Live/Delay.swift`): a state that waits for a time on the run's clock. Every test
// runs on a `TestClock`, advanced by the test once the run sleeps on it: no test sleeps, and
// none depends on timing.

private struct Offer: Sendable {
  var expiry = WallClockTime(secondsSince1970: 0)
  var notes: [String] = []
}

private let threeDays = Duration.seconds(3 * 86_400)

private func isWaitingUntil(_ event: RunEvent) -> Bool {
  if case .waitingUntil = event.kind { return true }
  return false
}

// swift-format-ignore
private func reminder() throws -> Flowchart<Offer> {
  try Flowchart<Offer> {
    Action("Send offer") { $0.notes.append("sent") }
    Delay("Remind later", for: threeDays)
    Action("Remind", isFinal: true) { $0.notes.append("reminded") }
  }
}

/// Where the run's top-level flow stands: parked (no task), unwinding to park, or running.
private func parking<Context>(of handle: RunHandle<Context>) -> String {
  handle.run.state.withLock { locked in
    switch locked.machine.phase {
    case .held, .running, .ended: locked.machine.hasTask ? "running" : "running, no task"
    case .unwinding: "unwinding"
    case .parked: locked.machine.hasTask ? "parked, with a task" : "parked"
    }
  }
}

/// Starts `chart` paused on `clock`, and reads its events until its first delay: returns the
/// handle, once its top-level flow has parked there (when `parks`), and that event.
private func startUntilDelay(
  _ chart: Flowchart<Offer>, on clock: TestClock, context: Offer = Offer(), parks: Bool = true
) async -> (RunHandle<Offer>, RunEvent?) {
  let handle = chart.start(with: context, clock: clock, isPaused: true, isLogged: true)
  var events = handle.events().makeAsyncIterator()
  handle.resume()
  let waiting = await events.next(where: isWaitingUntil)
  if parks {
    // The flow reported the delay before its task unwound.
    while parking(of: handle) == "unwinding" { await Task.yield() }
  }
  return (handle, waiting)
}

@Suite(.timeLimit(.minutes(5)))
struct DelayTests {
  @Test func aLiveRunParksAtADelayAndGoesOnWhenTheClockPassesItsDeadline() async throws {
    let clock = TestClock()
    let (handle, waiting) = await startUntilDelay(try reminder(), on: clock)
    let deadline = clock.wallClockStart.advanced(by: threeDays)
    #expect(waiting?.line == "Remind later: waiting until 2026-01-04T00:00:00Z")
    #expect(parking(of: handle) == "parked")
    #expect(
      handle.log.lines.contains { $0.hasSuffix("'Remind later' waits until 2026-01-04T00:00:00Z") })
    #expect(handle.positionNames == ["Remind later"])
    #expect(
      handle.delays == [
        PendingDelay(state: StateID(1), stateName: "Remind later", flow: 0, until: deadline)
      ])
    // The deadline is kept as a value in the run's state, for a snapshot.
    #expect(
      handle.run.state.withLock { $0.machine.delays[0] }
        == .init(state: 1, until: deadline))
    // Only the waker sleeps, on the run's clock, and nothing happens before the deadline.
    try await clock.waitForSleepers(1)
    clock.advance(by: threeDays - .seconds(1))
    #expect(parking(of: handle) == "parked")
    clock.advance(by: .seconds(1))
    let result = try await handle.result
    #expect(result.context.notes == ["sent", "reminded"])
    #expect(result.finalStateName == "Remind")
    #expect(result.stepCount == 3)
    #expect(handle.delays.isEmpty)
    #expect(clock.sleeperCount == 0)
  }

  @Test func aDeadlineAlreadyPassedFiresAtOnce() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Offer> {
      Delay("Expire the offer", until: { $0.expiry })
      Action("Expired", isFinal: true) { $0.notes.append("expired") }
    }
    let clock = TestClock()
    // A live run: no wait, no park, no sleeper.
    let handle = chart.start(with: Offer(), clock: clock, isLogged: true)
    #expect(try await handle.result.context.notes == ["expired"])
    #expect(!handle.log.lines.contains { $0.contains("waits until") })
    // `run(with:)` too.
    #expect(try await chart.run(with: Offer(), clock: clock).context.notes == ["expired"])
    #expect(clock.now.offset == .zero)
  }

  @Test func aDelayUntilATimeInTheContextWaitsForIt() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Offer> {
      Delay("Expire the offer", until: { $0.expiry })
      Action("Expired", isFinal: true) { $0.notes.append("expired") }
    }
    let clock = TestClock()
    let expiry = clock.wallClockStart.advanced(by: .seconds(90))
    let (handle, waiting) = await startUntilDelay(chart, on: clock, context: Offer(expiry: expiry))
    if case .waitingUntil(let until) = waiting?.kind { #expect(until == expiry) }
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(90))
    #expect(try await handle.result.context.notes == ["expired"])
  }

  @Test func cancellingARunParkedAtADelayEndsItCancelledAndStopsItsWaker() async throws {
    let clock = TestClock()
    let (handle, _) = await startUntilDelay(try reminder(), on: clock)
    try await clock.waitForSleepers(1)
    handle.cancel()
    await #expect {
      _ = try await handle.result
    } throws: { error in
      (error as? RunError)?.kind == .cancelled && (error as? RunError)?.stateName == "Remind later"
    }
    // The waker was cancelled with the flow's new task: nothing sleeps on the clock.
    #expect(clock.sleeperCount == 0)
  }

  @Test func aRunParkedAtADelayIsDrawnStoppedThere() async throws {
    let clock = TestClock()
    let chart = try reminder()
    let (handle, _) = await startUntilDelay(chart, on: clock)
    let mermaid = chart.mermaidDescription(showing: RunOverlay(log: handle.log))
    // The delay keeps its shape, entered; the state after it is not reached yet. The times
    // are the test clock's, which has not moved.
    expectText(
      mermaid,
      #"""
      flowchart TD
        s0["Send offer<br>×1 · 0.000s"]
        s1(["Remind later<br>[for 3 days]<br>×1 · 0.000s"])
        s2["Remind"]
        s2_end(((" ")))
        s0 --> s1
        s1 --> s2
        s2 --> s2_end
        classDef entered fill:#d8f0d8,stroke:#2e7d32,color:black
        classDef failed fill:#f8d0d0,stroke:#c62828,stroke-width:3px,color:black
        classDef cancelled fill:#fde9c8,stroke:#ef6c00,stroke-width:3px,color:black
        classDef unreached fill:#f4f4f4,stroke:#bbbbbb,color:#999999
        class s0,s1 entered
        class s2,s2_end unreached
        linkStyle 0 stroke:#2e7d32,stroke-width:3px
        linkStyle 1,2 stroke:#cccccc,color:#999999

      """#)
    handle.cancel()
    _ = try? await handle.result
  }

  @Test func aPausedRunStaysPausedPastItsDelaysDeadlineUntilResumed() async throws {
    let clock = TestClock()
    let (handle, _) = await startUntilDelay(try reminder(), on: clock)
    handle.pause()
    try await clock.waitForSleepers(1)
    clock.advance(by: threeDays)
    // The waker reports the deadline once it runs; the flow stays parked.
    while !handle.run.state.withLock({ $0.machine.isDelayDue }) { await Task.yield() }
    #expect(parking(of: handle) == "parked")
    handle.resume()
    #expect(try await handle.result.context.notes == ["sent", "reminded"])
  }

  /// An observer that keeps the run's last event and opens `ended` then.
  private func endObserver(_ last: Box<RunEvent>, _ ended: Gate) -> RunObserver {
    RunObserver(didFinishRun: { event in
      last.set(event)
      ended.open()
    })
  }

  @Test func aRunParkedAtADelayIsCancelledWhenItsLastHandleGoes() async throws {
    let clock = TestClock()
    let (last, ended) = (Box<RunEvent>(), Gate())
    let chart = try reminder()
    func startAndLetGoWhileItWaits() async {
      let handle = chart.start(
        with: Offer(), clock: clock, isPaused: true, observer: endObserver(last, ended))
      var events = handle.events().makeAsyncIterator()
      handle.resume()
      _ = await events.next(where: isWaitingUntil)
    }
    await startAndLetGoWhileItWaits()
    await ended.wait()
    guard case .runFailed(let error)? = last.wrapped?.kind else {
      Issue.record("the run failed: \(String(describing: last.wrapped))")
      return
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Remind later")
  }

  @Test func aDelayInADispatchBranchSleepsInItsTask() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Offer> {
      Dispatch("Both", isFinal: true, merge: { $0.notes += $1.notes }) {
        Branch {
          Delay("Cool down", for: .seconds(60))
          Action("Cooled", isFinal: true) { $0.notes.append("cooled") }
        }
        Branch { Action("Other", isFinal: true) { $0.notes.append("other") } }
      }
    }
    let clock = TestClock()
    let (handle, waiting) = await startUntilDelay(chart, on: clock, parks: false)
    #expect(waiting?.flow == 1)
    #expect(parking(of: handle) == "running")
    #expect(handle.delays.map(\.stateName) == ["Cool down"])
    #expect(handle.delays.first?.flow == 1)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(60))
    #expect(try await handle.result.context.notes.sorted() == ["cooled", "other"])
    #expect(handle.delays.isEmpty)
  }

  @Test func runWithSleepsOnTheRunsClock() async throws {
    let clock = TestClock()
    let chart = try reminder()
    let run = Task { try await chart.run(with: Offer(), clock: clock) }
    try await clock.waitForSleepers(1)
    #expect(clock.nextDeadline == TestClock.Instant(offset: threeDays))
    clock.advance(by: threeDays)
    #expect(try await run.value.context.notes == ["sent", "reminded"])
  }

  @Test func cancellingRunWithDuringADelayEndsItCancelled() async throws {
    let clock = TestClock()
    let chart = try reminder()
    let run = Task { try await chart.run(with: Offer(), clock: clock) }
    try await clock.waitForSleepers(1)
    run.cancel()
    await #expect {
      _ = try await run.value
    } throws: { error in
      (error as? RunError)?.kind == .cancelled
    }
  }

  @Test func aChartWithADelayIsAsynchronousAndRunSynchronouslySaysWhy() throws {
    let chart = try reminder()
    #expect(!chart.isSynchronous)
    #expect {
      _ = try chart.runSynchronously(with: Offer())
    } throws: { error in
      guard let error = error as? RunError else { return false }
      return error.kind == .asynchronousState
        && error.reason.hasPrefix("Delay 'Remind later' (FlowchartTests/DelayTests.swift:")
        && error.reason.hasSuffix(
          ") waits for a time, so the chart cannot run synchronously: use `try await chart.run(with:)` (give it a `clock:` to control the time), or a live run with `chart.start(with:)`."
        )
    }
  }

  @Test func aNegativeOrTooLongDurationOrATimeoutIsADefinitionError() {
    let problems = DefinitionErrorProbe.messages {
      try Flowchart<Offer> {
        Delay("Back in time", for: .seconds(-5))
        Delay("Forever", for: .seconds(2_000_000_000))
        Delay("Hurried", for: .seconds(5)).timeout(.seconds(1))
        Action("End", isFinal: true) { _ in }
      }
    }
    #expect(
      problems == [
        "invalid delay: Delay 'Back in time' waits for -5s. Give a duration of zero or more.",
        "invalid delay: Delay 'Forever' waits for 2000000000s, longer than the longest wait, 1000000000s (about 31 years). Give a shorter duration, or wait until a time read from the context.",
        "invalid delay: Delay 'Hurried' has a timeout, which a delay does not take: it waits for its own time. Leave the timeout out, or wait for a shorter time.",
      ])
  }

  @Test func aRoutesScriptForcesTheDelaySoItsRunNeedsNoTime() throws {
    // A route's script forces the delay, as a waiting state: its code, and so its sleep,
    // does not run, and the chart runs synchronously.
    let chart = try reminder()
    let routes = chart.routes()
    #expect(routes.map(\.description) == ["Send offer → Remind later → Remind [done]"])
    let result = try chart.runSynchronously(with: Offer(), script: routes[0].script)
    #expect(result.pathNames == routes[0].stateNames)
    #expect(result.context.notes == ["sent", "reminded"])
  }
}

@Suite struct DelayPrintingTests {
  // swift-format-ignore
  private func chart() throws -> Flowchart<Offer> {
    try Flowchart<Offer> {
      Action("Send offer") { _ in }
      Delay("Remind later", for: .seconds(3 * 86_400))
      Delay("Cool down", for: .milliseconds(1_500))
      Delay("Expire the offer", until: { $0.expiry })
        .retry(1)
      Delay("Last call", for: .seconds(60), isFinal: true)
    }
  }

  @Test func theTreeShowsEachDelaysTiming() throws {
    expectText(
      try chart().description,
      """
      Send offer (A)
      Remind later (T) · for 3 days
      Cool down (T) · for 1.5s
      Expire the offer (T) · until <context> [retry ×1]
      Last call (T) ! · for 1 minute
      """)
  }

  @Test func diagramsDrawADelayWithItsTiming() throws {
    let chart = try chart()
    let mermaid = chart.mermaidDescription
    #expect(mermaid.contains(#"  s1(["Remind later<br>[for 3 days]"])"#))
    #expect(mermaid.contains(#"  s3(["Expire the offer<br>[until #60;context#62; · retry ×1]"])"#))
    let dot = chart.dotDescription
    #expect(dot.contains(#"  s1 [label="Remind later\n[for 3 days]", shape=oval];"#))
  }
}

/// The kind and message of each problem a chart's declaration throws.
private enum DefinitionErrorProbe {
  static func messages(_ make: () throws -> Flowchart<Offer>) -> [String] {
    do {
      _ = try make()
      return []
    } catch let error as DefinitionError {
      return error.problems.map { "\($0.kind): \($0.message)" }
    } catch {
      return ["\(error)"]
    }
  }
}
