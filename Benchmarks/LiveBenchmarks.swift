import Flowchart

// The live-run workloads: the asynchronous 4-state cycle of TransitionBenchmarks.swift run
// through a run handle, against `run(with:)` in the same process.
//
// - unobserved: `chart.start(with:)` and `await handle.result`, nobody subscribed. Every
//   boundary of a live run takes the slow path (it updates the flows' positions under the
//   run's lock), so this row says what a handle costs when nobody watches;
// - observed: the same with one subscriber reading every event in a task of its own (the
//   issue's target: at most 2× the unobserved `run(with:)` per transition).

/// Runs the asynchronous cycle through a handle; with `observed`, one task reads every
/// event until the run ends.
@inline(never)
func runLiveChart(
  _ chart: Flowchart<CycleContext>, transitions: Int, observed: Bool
) async throws -> (RunResult<CycleContext>, events: Int) {
  let handle = chart.start(with: CycleContext(limit: transitions), isPaused: observed)
  guard observed else { return (try await handle.result, 0) }
  let events = handle.events(bufferingNewest: 4096)
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
    for observed in [false, true] {
      // An observed run costs tens of times more per transition: a twentieth of the
      // transitions keeps its samples as long as the others'.
      let transitions =
        observed ? configuration.asyncTransitions / 20 : configuration.asyncTransitions
      let samples = try await Interleaver.run(
        repetitions: configuration.repetitions,
        [
          {
            var result: RunResult<CycleContext>?
            let elapsed = try await Stopwatch.nanoseconds {
              result = try await runLiveChart(chart, transitions: transitions, observed: observed)
                .0
            }
            try expect(result?.context.counter, equals: transitions, "live chart")
            return elapsed / Double(transitions)
          },
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
            "async cycle through a handle, \(observed ? "one subscriber reading every event" : "nobody observing") vs run(with:), \(compactCount(transitions)) transitions",
          unit: "ns/transition", flowchart: samples[0], baseline: samples[1],
          targetRatio: observed ? 2 : nil))
    }
    report.notes.append(
      "live: the async cycle run through `chart.start(with:)`, against `run(with:)` in the "
        + "same process. A live run reports every boundary to its handle (positions, "
        + "events); `run(with:)` and `runSynchronously` pay one relaxed load per boundary "
        + "for the flag that turns that on.")
  }
}
