import Flowchart
import Testing

private struct Tally: Sendable {
  var count = 0
}

/// What a checking sink saw: the lines it was given, checked and counted as they come, so
/// that a long run's test keeps no more of them than the log does.
private struct SinkTally {
  /// The number the next line should have.
  var next = 1
  /// Lines that came out of order.
  var outOfOrder = 0
  /// The newest texts, as many as the log keeps.
  var newest: [String] = []
  /// Counts by state, worked out from the events alone: the reference for the log's own.
  var reference: [StateID: RunLog.StateCounts] = [:]
  /// When each flow entered its state, to time visits as the log does.
  var entered: [Int: (state: StateID, time: Duration)] = [:]
  /// Lines reporting an event, and lines reporting a change.
  var events = 0
  var changes = 0
}

/// A sink that checks each line's number and counts what the events say.
private final class CheckingSink: RunLogSink {
  let keep: Int
  let tally = Lock(SinkTally())

  init(keep: Int) { self.keep = keep }

  func write(_ line: RunLog.Line) {
    tally.withLock { tally in
      if line.number != tally.next { tally.outOfOrder += 1 }
      tally.next = line.number + 1
      tally.newest.append(line.text)
      if tally.newest.count > keep { tally.newest.removeFirst() }
      guard let event = line.event else {
        tally.changes += 1
        return
      }
      tally.events += 1
      guard let state = event.state else { return }
      let took = tally.entered[event.flow].map { $0.state == state ? event.time - $0.time : .zero }
      switch event.kind {
      case .stateEntered:
        tally.entered[event.flow] = (state, event.time)
        tally.reference[state, default: .init()].visits += 1
      case .stateDecided:
        tally.reference[state, default: .init()].time += took ?? .zero
      case .stateFailed, .caught:
        tally.reference[state, default: .init()].failures += 1
        tally.reference[state, default: .init()].time += took ?? .zero
      case .attemptFailed:
        tally.reference[state, default: .init()].failures += 1
      case .runStarted, .dispatchStarted, .branchStarted, .branchEnded, .dispatchJoined,
        .waitingForInput, .waitingUntil, .paused, .resumed, .runFinished, .runFailed, .retrying,
        .branchFailed, .branchSkipped, .branchCancelled, .mapEnded:
        break
      }
    }
  }
}

/// A sink that keeps every line, for short runs.
private final class RecordingSink: RunLogSink {
  let lines = Lock<[RunLog.Line]>([])
  func write(_ line: RunLog.Line) { lines.withLock { $0.append(line) } }
  var texts: [String] { lines.withLock { $0.map(\.text) } }
}

/// How much of a run's log stays in memory, what it counts, and what its sink receives.
@Suite(.timeLimit(.minutes(5)))
struct LiveRunLogBoundTests {
  /// A loop of `rounds` rounds: "Add one" takes 1 ms by `clock`, then "Enough?" decides.
  private func loop(rounds: Int, clock: ManualClock) throws -> Flowchart<Tally> {
    try Flowchart<Tally> {
      Action("Add one") { counter in
        clock.advance(by: .milliseconds(1))
        counter.count += 1
      }
      Condition("Enough?") {
        $0.count >= rounds
      } yes: {
        Action("Stop", isFinal: true)
      } no: {
        GoTo("Add one")
      }
    }
  }

  @Test func aLongLoggedRunKeepsOnlyItsNewestLinesAndSaysHowManyItDropped() async throws {
    let rounds = 100_000
    let (bound, clock) = (50, ManualClock())
    let sink = CheckingSink(keep: bound)
    let handle = try loop(rounds: rounds, clock: clock).start(
      with: Tally(), clock: clock, log: RunLog.Options(keepingLast: bound, sink: sink))
    let result = try await handle.result
    #expect(result.stepCount == 2 * rounds + 1)

    let log = handle.log
    // Per round: "Add one" entered, decided, its change; "Enough?" entered, decided.
    // Then the start, "Stop" entered and decided, and the run's end.
    let total = 5 * rounds + 4
    #expect(log.lines.count == bound)
    #expect(log.droppedLineCount == total - bound)
    #expect(log.lineCount == total)
    #expect(log.description.hasPrefix("… 499,954 earlier lines not kept\n"))
    #expect(log.description.split(separator: "\n").count == bound + 1)
    #expect(log.lines.last == "100.000s  run finished at 'Stop', after 200001 states")

    let tally = sink.tally.withLock { $0 }
    // The sink received every line, numbered in order, before the result was available.
    #expect(tally.next == total + 1)
    #expect(tally.outOfOrder == 0)
    #expect(tally.events == 4 * rounds + 4)
    #expect(tally.changes == rounds)
    #expect(tally.newest == log.lines)
    // The counts agree with those worked out from the events.
    #expect(log.counts == tally.reference)
    let addOne = try #require(log.counts[StateID(0)])
    #expect(addOne == RunLog.StateCounts(visits: rounds, time: .milliseconds(rounds)))
    #expect(log.counts[StateID(1)]?.visits == rounds)
    #expect(log.counts[StateID(2)]?.visits == 1)
    #expect(
      log.summary == """
        'Add one': 100,000 visits, 0 failures, 100.000s
        'Enough?': 100,000 visits, 0 failures, 0.000s
        'Stop': 1 visit, 0 failures, 0.000s
        """)
  }

  @Test func countsFailedAttemptsCaughtFailuresAndTheFailureThatStoppedTheRun() async throws {
    struct Flaky: Error {}
    let clock = ManualClock()
    // A failed attempt leaves the context as it found it: the tries are counted outside.
    let tries = Lock(0)
    let chart = try Flowchart<Tally> {
      Action("Flaky") { _ in
        clock.advance(by: .milliseconds(10))
        if tries.withLock({ tries in
          tries += 1
          return tries < 3
        }) {
          throw Flaky()
        }
      }
      .retry(2)
      Action("Always fails") { _ in throw Flaky() }
        .catch(goTo: "Recover")
      Action("Recover") { $0.count += 1 }
      Action("Gives up", isFinal: true) { _ in throw Flaky() }
    }
    let sink = CheckingSink(keep: 100)
    let handle = chart.start(with: Tally(), clock: clock, log: RunLog.Options(sink: sink))
    _ = await #expect(throws: RunError.self) { try await handle.result }
    let counts = handle.log.counts
    #expect(counts == sink.tally.withLock { $0.reference })
    #expect(
      counts[StateID(0)] == RunLog.StateCounts(visits: 1, failures: 2, time: .milliseconds(30)))
    #expect(counts[StateID(1)]?.failures == 1)
    #expect(counts[StateID(2)]?.failures == 0)
    #expect(counts[StateID(3)]?.failures == 1)
    #expect(handle.log.droppedLineCount == 0)
  }

  @Test func theSinkReceivesEachLineDuringTheRunNotAfterIt() async throws {
    let sink = RecordingSink()
    let seen = Lock<[String]>([])
    let chart = try Flowchart<Tally> {
      Action("First") { $0.count += 1 }
      Action("Look") { _ in seen.withLock { $0 = sink.texts } }
      Action("Last", isFinal: true)
    }
    let handle = chart.start(with: Tally(), clock: ManualClock(), log: RunLog.Options(sink: sink))
    _ = try await handle.result
    // What the sink held while "Look" ran: every line up to its entry.
    #expect(
      seen.withLock { $0 } == [
        "  0.000s  run started at 'First'",
        "  0.000s  entered 'First'",
        "  0.000s  'First' finished in 0.000s",
        "            count: 0 → 1",
        "  0.000s  entered 'Look'",
      ])
    #expect(sink.texts == handle.log.lines)
    #expect(sink.lines.withLock { $0.map(\.number) } == Array(1...handle.log.lines.count))
  }

  @Test func aSinkMayUseTheHandleWhileItWrites() async throws {
    let chart = try Flowchart<Tally> {
      Action("First") { $0.count += 1 }
      Action("Last", isFinal: true)
    }
    let holder = Lock<RunHandle<Tally>?>(nil)
    let logged = Lock<[Int]>([])
    let options = RunLog.Options { line in
      // Reading the handle's log from inside the sink neither deadlocks nor loses a line.
      let count = holder.withLock { $0 }?.log.lineCount ?? 0
      logged.withLock { $0.append(count >= line.number ? line.number : -line.number) }
    }
    let handle = chart.start(with: Tally(), isPaused: true, log: options)
    holder.withLock { $0 = handle }
    handle.resume()
    _ = try await handle.result
    #expect(logged.withLock { $0 } == Array(1...handle.log.lineCount))
  }

  @Test func aRunStartedFromInsideASinkWritesToItsOwnSink() async throws {
    let chart = try Flowchart<Tally> {
      Action("First") { $0.count += 1 }
      Action("Last", isFinal: true)
    }
    let inner = RecordingSink()
    let innerHandle = Lock<RunHandle<Tally>?>(nil)
    // The inner run's task starts inside the outer sink's write, and inherits its task locals.
    let outer = RunLog.Options { line in
      guard line.number == 1 else { return }
      let handle = chart.start(with: Tally(), log: RunLog.Options(sink: inner))
      innerHandle.withLock { $0 = handle }
    }
    _ = try await chart.start(with: Tally(), log: outer).result
    let handle = try #require(innerHandle.withLock { $0 })
    _ = try await handle.result
    #expect(inner.texts.count == 7)
    #expect(inner.texts == handle.log.lines)
  }

  @Test func aLimitOfZeroOrLessKeepsNoLineButCountsThemAll() async throws {
    let clock = ManualClock()
    let handle = try loop(rounds: 3, clock: clock).start(
      with: Tally(), clock: clock, log: RunLog.Options(keepingLast: -7))
    _ = try await handle.result
    #expect(RunLog.Options(keepingLast: -7).lineLimit == 0)
    #expect(handle.log.lines.isEmpty)
    #expect(handle.log.droppedLineCount == 19)
    #expect(handle.log.description == "… 19 earlier lines not kept")
    #expect(handle.log.counts[StateID(0)]?.visits == 3)
  }

  @Test func aShortRunKeepsEveryLineAndShowsNoMarker() async throws {
    let clock = ManualClock()
    let handle = try loop(rounds: 1, clock: clock).start(
      with: Tally(), clock: clock, isLogged: true)
    _ = try await handle.result
    #expect(RunLog.Options.standard.lineLimit == 10_000)
    #expect(handle.log.droppedLineCount == 0)
    #expect(handle.log.description == handle.log.lines.joined(separator: "\n"))
    #expect(handle.log.lines.first == "  0.000s  run started at 'Add one'")
  }

  @Test func aLogWithOneLineDroppedSaysLineNotLines() async throws {
    let clock = ManualClock()
    let handle = try loop(rounds: 1, clock: clock).start(
      with: Tally(), clock: clock, log: RunLog.Options(keepingLast: 8))
    _ = try await handle.result
    #expect(handle.log.lineCount == 9)
    #expect(
      handle.log.description.hasPrefix("… 1 earlier line not kept\n  0.000s  entered 'Add one'"))
  }

  @Test func theLiveRunsArticlesSampleIsWhatARunPrints() async throws {
    struct Workout: Sendable {
      var isWillingToExercise = true
      var log: [String] = []
    }
    let clock = ManualClock()
    let chart = try Flowchart<Workout> {
      Condition("Willing to exercise?") {
        $0.isWillingToExercise
      } yes: {
        Action("Lift weights") { workout in
          clock.advance(by: .milliseconds(300))
          workout.log.append("lifted weights")
        }
        Action("Do sit-ups", isFinal: true) { _ in clock.advance(by: .milliseconds(1_250)) }
      } no: {
        Action("Rest", isFinal: true)
      }
    }
    let sink = RecordingSink()
    let handle = chart.start(
      with: Workout(), clock: clock, log: RunLog.Options(keepingLast: 3, sink: sink))
    _ = try await handle.result
    #expect(
      "\(handle.log)" == """
        … 6 earlier lines not kept
          0.300s  entered 'Do sit-ups'
          1.550s  'Do sit-ups' finished in 1.250s
          1.550s  run finished at 'Do sit-ups', after 3 states
        """)
    #expect(
      handle.log.summary == """
        'Willing to exercise?': 1 visit, 0 failures, 0.000s
        'Lift weights': 1 visit, 0 failures, 0.300s
        'Do sit-ups': 1 visit, 0 failures, 1.250s
        """)
    #expect(sink.texts.count == 9)
  }
}
