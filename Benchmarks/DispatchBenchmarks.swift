import Flowchart

// The dispatch workload (issue item 3).
//
// The chart is one final dispatch of `n` branches; each branch is one final asynchronous
// action that adds 1 to its copy of the context's `value`. When every branch has ended,
// the dispatch folds each copy back with `merge` (`total += copy.value`) in declaration
// order.
//
// The baseline does the same work and the same join with a raw throwing task group: one
// child task per branch running the same branch closure on a copy of the context, the
// copies collected by index, then merged in declaration order with the same merge closure.

/// The context of the dispatch workload.
struct FanOutContext: Sendable {
  /// What each branch increments on its own copy.
  var value = 0
  /// The sum of the branches' values, folded in by the merge.
  var total = 0
}

/// The closures of the dispatch workload, shared by the chart and the baseline.
struct FanOutCode: Sendable {
  /// The work of every branch: a short asynchronous state that does not suspend.
  let branch: @Sendable (inout FanOutContext) async throws -> Void
  /// Folds one branch's copy into the running context.
  let merge: @Sendable (inout FanOutContext, FanOutContext) throws -> Void

  /// The closures, hidden from the optimizer.
  static func make() -> FanOutCode {
    opaque(FanOutCode(branch: { $0.value &+= 1 }, merge: { $0.total &+= $1.value }))
  }

  /// A chart of one final dispatch with `branches` branches.
  func makeChart(branches: Int) throws -> Flowchart<FanOutContext> {
    let names = (0..<branches).map { "Branch \($0)" }
    return try Flowchart<FanOutContext> {
      Dispatch("Fan out", isFinal: true, merge: merge) {
        for name in names {
          Branch<FanOutContext> { Action(name, isFinal: true, branch) }
        }
      }
    }
  }
}

/// Runs the dispatch chart once through the public API.
@inline(never)
func runDispatchChart(_ chart: Flowchart<FanOutContext>) async throws -> FanOutContext {
  try await chart.run(with: FanOutContext(), stepLimit: nil).context
}

/// Runs the same fan-out and join with a raw task group: the baseline.
@inline(never)
func runDispatchBaseline(_ code: FanOutCode, branches: Int) async throws -> FanOutContext {
  var context = FanOutContext()
  let snapshot = context
  let copies = try await withThrowingTaskGroup(
    of: (Int, FanOutContext).self, returning: [FanOutContext?].self
  ) { group in
    for index in 0..<branches {
      group.addTask {
        var copy = snapshot
        try await code.branch(&copy)
        return (index, copy)
      }
    }
    var copies = [FanOutContext?](repeating: nil, count: branches)
    for try await (index, copy) in group {
      copies[index] = copy
    }
    return copies
  }
  for copy in copies {
    guard let copy else { throw BenchmarkError.mismatch("a branch returned no context") }
    try code.merge(&context, copy)
  }
  return context
}

/// Measures dispatch fan-out and join against a raw task group.
enum DispatchBenchmarks {
  /// Issue item 3: one row per branch count.
  static func measure(_ configuration: Configuration, into report: inout Report) async throws {
    let code = FanOutCode.make()
    for branches in configuration.dispatchBranches {
      let chart = try code.makeChart(branches: branches)
      // Small dispatches repeat within one sample so that it lasts long enough to time.
      let runs = max(1, configuration.dispatchBranchesPerSample / branches)
      let samples = try await Interleaver.run(
        repetitions: configuration.repetitions,
        [
          {
            var total = 0
            let elapsed = try await Stopwatch.nanoseconds {
              for _ in 0..<runs {
                total &+= try await runDispatchChart(chart).total
              }
            }
            try expect(total, equals: runs * branches, "dispatch chart")
            return elapsed / Double(runs * branches)
          },
          {
            var total = 0
            let elapsed = try await Stopwatch.nanoseconds {
              for _ in 0..<runs {
                total &+= try await runDispatchBaseline(code, branches: branches).total
              }
            }
            try expect(total, equals: runs * branches, "dispatch baseline")
            return elapsed / Double(runs * branches)
          },
        ])
      report.rows.append(
        ReportRow(
          group: "dispatch",
          workload: "dispatch of \(compactCount(branches)) branches, joined (\(runs) per sample)",
          unit: "ns/branch", flowchart: samples[0], baseline: samples[1],
          targetRatio: branches >= 1_000 ? 1.2 : 1.3))
    }
    report.notes.append(
      "dispatch: one final Dispatch of n branches, each a final async Action adding 1 to its "
        + "copy of the context, merged back in declaration order. Baseline: "
        + "`withThrowingTaskGroup`, one child task per branch running the same closure on a "
        + "copy, copies collected by index and merged in order with the same merge closure. "
        + "Targets (issue 26): ≤ 1.3× below 1,000 branches (10 in a full run), ≤ 1.2× from 1,000 up."
    )
  }
}
