import Flowchart

/// The HTML report of a run (issue 28): a run of 10,000 states on a chart of 1,000 (the full
/// run's size; a tenth of each for `--quick`) against a tenth of both, interleaved, as the
/// growth rows measure. Its target is the growth rows' (≤ 12); the larger report's median is
/// the figure the issue asks to stay under a second, given in a row of its own with the
/// report's size per state run.
enum RunReportBenchmarks {
  /// A chart of `states` actions in a row, and an overlay of `steps` states entered in turn.
  static func workload(states: Int, steps: Int) throws -> (Flowchart<Int>, RunOverlay) {
    let chart = try Flowchart<Int> {
      for index in 0..<(states - 1) { Action("Step \(index)") }
      Action("Last", isFinal: true)
    }
    var run = RunOverlay(spanLimit: steps)
    for step in 0..<steps {
      let state = StateID(step % states)
      let time = Duration.microseconds(step * 100)
      run.record(.entered, state: state, flow: 0, time: time)
      run.record(.decided(.next), state: state, flow: 0, time: time + .microseconds(50))
    }
    run.record(.runFinished, state: StateID(states - 1), flow: 0, time: .seconds(10))
    return (chart, run)
  }

  static func measure(_ configuration: Configuration, into report: inout Report) throws {
    let sizes =
      configuration.isQuick ? [(10, 100), (100, 1_000)] : [(100, 1_000), (1_000, 10_000)]
    let workloads = try sizes.map { try workload(states: $0.0, steps: $0.1) }
    let lengths = workloads.map { $0.0.htmlReport(of: $0.1).utf8.count }
    let runs = [10, 1]
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions,
      workloads.indices.map { index in
        {
          var length = 0
          let elapsed = Stopwatch.nanoseconds {
            for _ in 0..<runs[index] {
              length = workloads[index].0.htmlReport(of: workloads[index].1).utf8.count
            }
          }
          try expect(length, equals: lengths[index], "run report")
          return elapsed / Double(runs[index])
        }
      })
    let (states, steps) = sizes[1]
    let perStep = lengths[1] / steps
    func milliseconds(_ samples: Samples) -> Samples {
      var result = Samples()
      for value in samples.values { result.append(value / 1e6) }
      return result
    }
    report.rows.append(
      ReportRow(
        group: "growth",
        workload:
          "HTML run report: \(compactCount(steps)) states run on a \(compactCount(states))-state chart vs a tenth "
          + "(\(compactCount(lengths[1])) bytes, ~\(perStep) bytes per state run)",
        unit: "ms", flowchart: milliseconds(samples[1]), baseline: milliseconds(samples[0]),
        targetRatio: 12))
    // The issue's own figures: the larger report's time (under a second) and its size per
    // state run, with no baseline.
    var bytes = Samples()
    bytes.append(Double(lengths[1]) / Double(steps))
    report.rows.append(
      ReportRow(
        group: "growth",
        workload:
          "HTML run report, \(compactCount(steps)) states run on a \(compactCount(states))-state chart: time (under 1,000 ms)",
        unit: "ms", flowchart: milliseconds(samples[1]), baseline: nil, targetRatio: nil))
    report.rows.append(
      ReportRow(
        group: "growth",
        workload:
          "HTML run report, \(compactCount(steps)) states run on a \(compactCount(states))-state chart: size (\(compactCount(lengths[1])) bytes)",
        unit: "bytes/state", flowchart: bytes, baseline: nil, targetRatio: nil))
  }
}
