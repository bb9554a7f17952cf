import Flowchart

// The subflow workload: the synchronous cycle of TransitionBenchmarks.swift with its first
// action ("Work 1") run as a subflow, a chart of one final action on the whole context,
// against the same cycle flattened (the plain cycle chart), both with `runSynchronously`.
// Each transition visits the subflow once, so the ratio is what a subflow's visit costs
// over the state it stands for (the target: at most 1.3x).

extension SyncCycleCode {
  /// The cycle with "Work 1" as a subflow running `work1` in a chart of its own.
  func makeChartWithSubflow() throws -> Flowchart<CycleContext> {
    let inner = try Flowchart<CycleContext> { Action("Work 1", isFinal: true, work1) }
    return try Flowchart<CycleContext> {
      Subflow("Work 1", running: inner, context: .whole)
      Condition("More 1?", check1, yes: {}, no: { GoTo("Done") })
      Action("Work 2", work2)
      Condition(
        "More 2?", check2, yes: { GoTo("Work 1") }, no: { Action("Done", isFinal: true) })
    }
  }
}

extension CompositionBenchmarks {
  static func measureSubflow(_ configuration: Configuration, into report: inout Report) throws {
    let code = SyncCycleCode.nonCapturing()
    let nested = try code.makeChartWithSubflow()
    let flat = try code.makeChart()
    let transitions = configuration.syncTransitions
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var result: RunResult<CycleContext>?
          let elapsed = try Stopwatch.nanoseconds {
            result = try runSyncChart(nested, transitions: transitions)
          }
          try expect(result?.context.counter, equals: transitions, "chart with a subflow")
          return elapsed / Double(transitions)
        },
        {
          var result: RunResult<CycleContext>?
          let elapsed = try Stopwatch.nanoseconds {
            result = try runSyncChart(flat, transitions: transitions)
          }
          try expect(result?.context.counter, equals: transitions, "flattened chart")
          return elapsed / Double(transitions)
        },
      ])
    report.rows.append(
      ReportRow(
        group: "composition",
        workload:
          "sync cycle with a subflow vs the same chart flattened, \(compactCount(transitions)) transitions",
        unit: "ns/transition", flowchart: samples[0], baseline: samples[1], targetRatio: 1.3))
  }
}
