import Flowchart

/// Measures peak resident memory of long synchronous runs (issue item 6).
///
/// Peak resident memory is a figure for the whole process, so each run happens in a child
/// process of its own: this executable started again with the hidden `--memory-probe
/// <steps>` option, which runs the synchronous cycle for `steps` steps (states entered; two
/// per transition) and prints its peak. The baseline child runs the hand-written loop for
/// the same number of transitions, so the pair shows what the chart adds to the process.
enum MemoryBenchmarks {
  /// The two sides a probe can run.
  enum Side: String, Sendable {
    /// The cycle chart, through `runSynchronously`.
    case flowchart
    /// The hand-written cycle.
    case baseline
  }

  /// Issue item 6: peak memory at the smaller and the larger step count, and their ratio.
  static func measure(_ configuration: Configuration, into report: inout Report) throws {
    var peaks: [Int: (flowchart: Samples, baseline: Samples)] = [:]
    for steps in configuration.memorySteps {
      let samples = try Interleaver.run(
        repetitions: configuration.memoryRepetitions,
        [Side.flowchart, .baseline].map { side in { try probe(side, steps: steps) } })
      peaks[steps] = (samples[0], samples[1])
      report.rows.append(
        ReportRow(
          group: "memory", workload: "peak RSS, sync run of \(compactCount(steps)) steps",
          unit: "MiB", flowchart: samples[0], baseline: samples[1], targetRatio: nil))
    }
    let steps = configuration.memorySteps
    if steps.count >= 2, let small = peaks[steps[steps.count - 2]],
      let large = peaks[steps[steps.count - 1]]
    {
      report.rows.append(
        ReportRow(
          group: "memory",
          workload:
            "peak RSS growth: \(compactCount(steps[steps.count - 1])) vs "
            + "\(compactCount(steps[steps.count - 2])) steps",
          unit: "MiB", flowchart: large.flowchart, baseline: small.flowchart, targetRatio: 1.05))
    }
    report.notes.append(
      "memory: each figure is the VmHWM of a fresh child process (this executable with "
        + "`--memory-probe <steps>`) running the sync cycle chart, or the hand-written loop "
        + "as baseline, for that many steps (states entered, two per transition). The growth "
        + "row compares the chart's peak at the larger step count ('Flowchart') with the "
        + "smaller ('Baseline'): ~1.0 means memory does not grow with the run's length (the issue "
        + "sets no number; the 1.05 limit is this benchmark's).")
    try SuspensionBenchmarks.measure(configuration, into: &report)
  }

  /// Runs one probe child and returns its peak resident memory in MiB.
  private static func probe(_ side: Side, steps: Int) throws -> Double {
    var arguments = ["--memory-probe", String(steps)]
    if side == .baseline {
      arguments.append("--memory-probe-baseline")
    }
    let output = try SelfProcess.run(arguments)
    guard
      let line = output.split(separator: "\n").first(where: { $0.hasPrefix("peak-bytes ") }),
      let bytes = Int(line.dropFirst("peak-bytes ".count))
    else {
      throw BenchmarkError.childProcessFailed("memory probe printed no peak: \(output)")
    }
    return Double(bytes) / 1_048_576
  }

  /// The child side: runs `steps` steps and prints `peak-bytes <n>` on standard output.
  static func runProbe(steps: Int, side: Side) throws {
    let transitions = max(1, steps / 2)
    let code = SyncCycleCode.nonCapturing()
    switch side {
    case .flowchart:
      let result = try runSyncChart(try code.makeChart(), transitions: transitions)
      try expect(result.stepCount, equals: 2 * transitions + 1, "memory probe steps")
    case .baseline:
      let context = try runSyncBaseline(code, transitions: transitions)
      try expect(context.counter, equals: transitions, "memory probe transitions")
    }
    guard let peak = MemoryStatistics.peakResidentBytes() else {
      throw BenchmarkError.childProcessFailed("peak resident memory is unreadable here")
    }
    print("peak-bytes \(peak)")
  }
}
