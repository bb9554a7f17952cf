import Flowchart

// The composition workloads: a dispatch with a concurrency limit, and a map.
//
// Dispatch with a limit: one final dispatch of `n` branches with `maxConcurrency: 8`, each
// branch the fan-out workload's final asynchronous action, merged back in declaration
// order. The baseline keeps 8 child tasks of a throwing task group in flight, starting the
// next as one ends, then merges the copies in order: what a careful author writes by hand.
//
// Map: a map over `n` integers with `maxConcurrency: 8`, whose chart is one final
// asynchronous action that doubles its element; the outputs are summed in input order. The
// baseline keeps 8 child tasks in flight, each calling the same closure on its element,
// and collects the outputs by index.

/// The work of one map element, shared by the chart and the baseline.
struct MapCode: Sendable {
  let work: @Sendable (inout Int) async throws -> Void

  /// The closure, hidden from the optimizer.
  static func make() -> MapCode { opaque(MapCode(work: { $0 &*= 2 })) }

  /// A chart of one final map over the context's elements.
  func makeChart() throws -> Flowchart<[Int]> {
    let inner = try Flowchart<Int> { Action("Double", isFinal: true, work) }
    return try Flowchart<[Int]> {
      Map(
        "Double all", isFinal: true, over: { $0 }, running: inner,
        maxConcurrency: CompositionBenchmarks.limit
      ) { elements, results in
        elements = results.outputs
      }
    }
  }
}

/// Runs the limited dispatch chart once.
@inline(never)
func runLimitedDispatchChart(_ chart: Flowchart<FanOutContext>) async throws -> FanOutContext {
  try await chart.run(with: FanOutContext(), stepLimit: nil).context
}

/// Runs `count` copies of `work` with at most `limit` in flight, collected by index.
@inline(never)
func runLimitedGroup<Value: Sendable>(
  _ inputs: [Value], limit: Int, _ work: @escaping @Sendable (inout Value) async throws -> Void
) async throws -> [Value] {
  try await withThrowingTaskGroup(of: (Int, Value).self, returning: [Value].self) { group in
    var outputs = [Value?](repeating: nil, count: inputs.count)
    var next = 0
    while next < min(limit, inputs.count) {
      let index = next
      group.addTask {
        var value = inputs[index]
        try await work(&value)
        return (index, value)
      }
      next += 1
    }
    while let (index, value) = try await group.next() {
      outputs[index] = value
      if next < inputs.count {
        let index = next
        group.addTask {
          var value = inputs[index]
          try await work(&value)
          return (index, value)
        }
        next += 1
      }
    }
    return try outputs.map {
      guard let value = $0 else { throw BenchmarkError.mismatch("a task returned nothing") }
      return value
    }
  }
}

/// Measures a dispatch with a concurrency limit and a map against hand-written task groups.
enum CompositionBenchmarks {
  /// The concurrency limit of both workloads.
  static var limit: Int { 8 }

  static func measure(_ configuration: Configuration, into report: inout Report) async throws {
    let branches = configuration.dispatchBranches.last ?? 1_000
    let fanOut = FanOutCode.make()
    let names = (0..<branches).map { "Branch \($0)" }
    let dispatch = try Flowchart<FanOutContext> {
      Dispatch("Fan out", isFinal: true, maxConcurrency: limit, merge: fanOut.merge) {
        for name in names {
          Branch<FanOutContext> { Action(name, isFinal: true, fanOut.branch) }
        }
      }
    }
    let dispatchSamples = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var total = 0
          let elapsed = try await Stopwatch.nanoseconds {
            total = try await runLimitedDispatchChart(dispatch).total
          }
          try expect(total, equals: branches, "limited dispatch chart")
          return elapsed / Double(branches)
        },
        {
          var total = 0
          let elapsed = try await Stopwatch.nanoseconds {
            let copies = try await runLimitedGroup(
              [FanOutContext](repeating: FanOutContext(), count: branches), limit: limit,
              fanOut.branch)
            var context = FanOutContext()
            for copy in copies { try fanOut.merge(&context, copy) }
            total = context.total
          }
          try expect(total, equals: branches, "limited dispatch baseline")
          return elapsed / Double(branches)
        },
      ])
    report.rows.append(
      ReportRow(
        group: "composition",
        workload: "dispatch of \(compactCount(branches)) branches, maxConcurrency \(limit)",
        unit: "ns/branch", flowchart: dispatchSamples[0], baseline: dispatchSamples[1],
        targetRatio: 1.5))

    let elements = configuration.mapElements
    let code = MapCode.make()
    let map = try code.makeChart()
    let input = Array(0..<elements)
    let expected = input.reduce(0, &+) &* 2
    let mapSamples = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var sum = 0
          let elapsed = try await Stopwatch.nanoseconds {
            sum = try await map.run(with: input, stepLimit: nil).context.reduce(0, &+)
          }
          try expect(sum, equals: expected, "map chart")
          return elapsed / Double(elements)
        },
        {
          var sum = 0
          let elapsed = try await Stopwatch.nanoseconds {
            sum = try await runLimitedGroup(input, limit: limit, code.work).reduce(0, &+)
          }
          try expect(sum, equals: expected, "map baseline")
          return elapsed / Double(elements)
        },
      ])
    report.rows.append(
      ReportRow(
        group: "composition",
        workload: "map over \(compactCount(elements)) elements, maxConcurrency \(limit)",
        unit: "ns/element", flowchart: mapSamples[0], baseline: mapSamples[1],
        targetRatio: 1.5))
    report.notes.append(
      "composition: a final Dispatch of n fan-out branches with maxConcurrency 8, and a final "
        + "Map of n integers (maxConcurrency 8) whose chart is one final async Action doubling "
        + "its element. Baselines: a throwing task group keeping 8 child tasks in flight, "
        + "running the same closures, collecting by index, then merging (dispatch) or "
        + "returning the outputs in input order (map).")
    try measureSubflow(configuration, into: &report)
  }
}
