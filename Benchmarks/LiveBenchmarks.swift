import Flowchart

// The live-run workloads: the asynchronous 4-state cycle of TransitionBenchmarks.swift run
// through a run handle, against `run(with:)` in the same process.
//
// - unobserved: `chart.start(with:)` and `await handle.result`, nobody subscribed. The
//   top-level flow's boundaries take the fast path and store the state for the handle's
//   positions, so this row says what a handle costs when nobody watches (issue 26's
//   target: at most 1.2× `run(with:)`);
// - observed: the same with one subscriber reading every event in a task of its own,
//   against the same run nobody observes (issue 26's target: at most 1.5× per transition).
//   Each sample checks how many events its reader got: a reader that falls behind its run
//   by more than its buffer loses the oldest events, and the notes say so;
// - pause → resume: see LivePauseBenchmarks.swift.

/// Runs the asynchronous cycle through a handle; with `observed`, one task reads every
/// event until the run ends.
@inline(never)
func runLiveChart(
  _ chart: Flowchart<CycleContext>, transitions: Int, observed: Bool
) async throws -> (RunResult<CycleContext>, events: Int) {
  let handle = chart.start(with: CycleContext(limit: transitions), isPaused: observed)
  guard observed else { return (try await handle.result, 0) }
  let events = handle.events(bufferingNewest: 1 << 16)
  let reader = Task {
    var count = 0
    for await _ in events { count += 1 }
    return count
  }
  handle.resume()
  let result = try await handle.result
  return (result, await reader.value)
}

enum LiveBenchmarks {
  static func measure(_ configuration: Configuration, into report: inout Report) async throws {
    let chart = try AsyncCycleCode.nonCapturing().makeChart()
    let transitions = configuration.asyncTransitions
    // A handle nobody observes, against run(with:).
    let unobserved = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        { try await liveSample(chart, transitions: transitions, observed: false) },
        {
          var result: RunResult<CycleContext>?
          let elapsed = try await Stopwatch.nanoseconds {
            result = try await runAsyncChart(chart, transitions: transitions)
          }
          try expect(result?.context.counter, equals: transitions, "run(with:)")
          return elapsed / Double(transitions)
        },
      ])
    report.rows.append(
      ReportRow(
        group: "live",
        workload:
          "async cycle through a handle, nobody observing vs run(with:), \(compactCount(transitions)) transitions",
        unit: "ns/transition", flowchart: unobserved[0], baseline: unobserved[1],
        targetRatio: 1.2))
    // One subscriber reading every event, against the same handle run nobody observes (issue
    // 26's target: at most 1.5x per transition).
    let observedTransitions = max(transitions / 10, 1)
    let missed = Counter()
    let observed = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          try await liveSample(
            chart, transitions: observedTransitions, observed: true, missed: missed)
        },
        { try await liveSample(chart, transitions: observedTransitions, observed: false) },
      ])
    report.rows.append(
      ReportRow(
        group: "live",
        workload:
          "async cycle through a handle, one subscriber reading every event vs nobody observing, \(compactCount(observedTransitions)) transitions",
        unit: "ns/transition", flowchart: observed[0], baseline: observed[1], targetRatio: 1.5))
    report.notes.append(
      "live: the async cycle run through `chart.start(with:)`, against `run(with:)` in the "
        + "same process, then observed against unobserved. A live run nobody observes "
        + "stores each state its top-level flow enters, for the handle's positions; once an "
        + "observer, a log or a subscriber reads its events, every boundary reports to the "
        + "run. `run(with:)` and `runSynchronously` pay one relaxed load per boundary for the "
        + "flags that turn that on. A subscriber's "
        + "stream takes the events in batches: the run wakes it only when it waits. In the "
        + "observed row, \(missed.summary).")
    try await LivePauseBenchmarks.measure(configuration, into: &report)
  }

  /// One sample of a run through a handle: nanoseconds per transition. An observed sample
  /// adds the events its reader missed to `missed`.
  private static func liveSample(
    _ chart: Flowchart<CycleContext>, transitions: Int, observed: Bool,
    missed: Counter? = nil
  ) async throws -> Double {
    var outcome: (RunResult<CycleContext>, events: Int)?
    let elapsed = try await Stopwatch.nanoseconds {
      outcome = try await runLiveChart(chart, transitions: transitions, observed: observed)
    }
    try expect(outcome?.0.context.counter, equals: transitions, "live chart")
    if observed, let (result, events) = outcome {
      // The run's start and end, and each state's entry and decision.
      missed?.add(expected: 2 * result.stepCount + 2, got: events)
    }
    return elapsed / Double(transitions)
  }
}

/// Counts the events observed samples expected and got.
final class Counter: Sendable {
  private let counts = Lock<(samples: Int, short: Int, expected: Int, got: Int)>((0, 0, 0, 0))

  func add(expected: Int, got: Int) {
    counts.withLock {
      $0.samples += 1
      if got < expected { $0.short += 1 }
      $0.expected += expected
      $0.got += got
    }
  }

  /// `every event in 12 of 12 samples`, or how many were missed.
  var summary: String {
    counts.withLock { counts in
      if counts.short == 0 { return "its reader got every event in all \(counts.samples) samples" }
      return
        "its reader missed events in \(counts.short) of \(counts.samples) samples "
        + "(\(counts.expected - counts.got) of \(counts.expected) in all): it fell behind the run "
        + "by more than its buffer"
    }
  }
}
