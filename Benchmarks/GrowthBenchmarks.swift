import Flowchart

/// Growth rows for the corners issue 27 found cubic or quadratic: printing deeply nested
/// subflows, resolving many prerequisites, and a backoff's delay before a late retry.
///
/// Each row measures one workload at a size and at ten times that size, interleaved in the
/// same run, and gives t(10×) as 'Flowchart' and t(1×) as 'Baseline': their ratio must stay
/// ≤ 12 (linear growth gives about 10; a backoff's delay, constant per call, about 1). As in
/// ``CompileBenchmarks``, a sample of the smaller size repeats its work ten times, so that
/// both samples last about as long and a burst of load from another process is as likely
/// to hit either.
enum GrowthBenchmarks {
  static func measure(_ configuration: Configuration, into report: inout Report) throws {
    try measurePrinting(configuration, into: &report)
    try measurePrerequisites(configuration, into: &report)
    try measureBackoff(configuration, into: &report)
    try RunReportBenchmarks.measure(configuration, into: &report)
  }

  /// Adds the row comparing `samples[1]` (the larger size) with `samples[0]`.
  private static func addRow(
    _ workload: String, unit: String = "ms", _ samples: [Samples], into report: inout Report
  ) {
    func converted(_ samples: Samples) -> Samples {
      var result = Samples()
      for value in samples.values { result.append(unit == "ms" ? value / 1e6 : value) }
      return result
    }
    report.rows.append(
      ReportRow(
        group: "growth", workload: workload, unit: unit, flowchart: converted(samples[1]),
        baseline: converted(samples[0]), targetRatio: 12))
  }

  // MARK: - Printing nested subflows

  /// A chain of `depth` charts, each a subflow running the next, the innermost one action.
  private static func nestedSubflows(depth: Int) throws -> Flowchart<Int> {
    var chart = try Flowchart<Int> { Action("Leaf", isFinal: true) { $0 &+= 1 } }
    for level in 1...depth {
      let inner = chart
      chart = try Flowchart<Int> {
        Subflow("Level \(level)", running: inner, context: .whole)
        Action("After \(level)", isFinal: true)
      }
    }
    return chart
  }

  /// `printTree(expandingSubflows: true)` of nested subflows whose output is ten times as
  /// long: the lines at depth d carry d prefixes, so the output grows as the square of the
  /// depth, and depths √10 apart give outputs ten apart.
  static func measurePrinting(_ configuration: Configuration, into report: inout Report) throws {
    let depths = configuration.isQuick ? [30, 95] : [100, 316]
    let charts = try depths.map(nestedSubflows(depth:))
    var lengths: [Int] = []
    for chart in charts {
      var text = ""
      chart.printTree(to: &text, expandingSubflows: true)
      lengths.append(text.utf8.count)
    }
    let runs = [10, 1]
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions,
      charts.indices.map { index in
        {
          var length = 0
          let elapsed = Stopwatch.nanoseconds {
            for _ in 0..<runs[index] {
              var text = ""
              charts[index].printTree(to: &text, expandingSubflows: true)
              length = text.utf8.count
            }
          }
          try expect(length, equals: lengths[index], "printed nested subflows")
          return elapsed / Double(runs[index])
        }
      })
    addRow(
      "print nested subflows growth: depth \(depths[1]) vs \(depths[0]) "
        + "(\(compactCount(lengths[1])) vs \(compactCount(lengths[0])) bytes)",
      samples, into: &report)
    report.notes.append(
      "growth, print: `printTree(to:expandingSubflows: true)` of a chain of charts, each a "
        + "subflow running the next then a final action; depths √10 apart, so that the output "
        + "(whose lines at depth d start with d prefixes) is about ten times as long. Before "
        + "issue 27 each level re-rendered and re-indented the tree inside it: cubic in the "
        + "depth (1,000 levels took 33 s).")
  }

  // MARK: - Prerequisites

  /// A dispatch of `count` branches whose last waits for every other, by name.
  private static func fanIn(_ names: [String]) throws -> Flowchart<Int> {
    let others = Array(names.dropLast())
    return try Flowchart<Int> {
      Dispatch("Fan in") { total, branch in
        total &+= branch
      } branches: {
        for (index, name) in names.enumerated() {
          Branch(name, after: index == names.count - 1 ? others : []) {
            Action(name, isFinal: true) { $0 &+= 1 }
          }
        }
      }
      Action("Joined", isFinal: true)
    }
  }

  /// Compiling a dispatch whose last branch waits for all the others: one look-up per
  /// prerequisite.
  static func measurePrerequisites(
    _ configuration: Configuration, into report: inout Report
  ) throws {
    let counts = configuration.isQuick ? [160, 1_600] : [1_600, 16_000]
    let names = counts.map { count in (0..<count).map { "Branch \($0)" } }
    let runs = [10, 1]
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions,
      counts.indices.map { index in
        {
          var charts: [Flowchart<Int>] = []
          let elapsed = try Stopwatch.nanoseconds {
            for _ in 0..<runs[index] { charts.append(try fanIn(names[index])) }
          }
          // The branches' states, the dispatch and the state after it.
          try expect(charts.last?.states.count, equals: counts[index] + 2, "compiled a fan-in")
          return elapsed / Double(runs[index])
        }
      })
    addRow(
      "compile prerequisites growth: t(\(compactCount(counts[1]))) vs "
        + "t(\(compactCount(counts[0]))) branches",
      samples, into: &report)
    report.notes.append(
      "growth, prerequisites: `try Flowchart { … }` of a dispatch whose last branch waits for "
        + "every other branch by name (names made beforehand). Before issue 27 each "
        + "prerequisite searched the branches' names: quadratic (16,000 branches took 2.1 s).")
  }

  // MARK: - Backoff delays

  /// `Backoff.delay(beforeRetry:)` of an exponential backoff that grows slowly, before a
  /// retry ten times as late: constant per call.
  static func measureBackoff(_ configuration: Configuration, into report: inout Report) throws {
    let retries = configuration.isQuick ? [1_000_000, 10_000_000] : [10_000_000, 100_000_000]
    let backoff = Backoff.exponential(
      initial: .nanoseconds(1), multiplier: 1.000_000_1, maximum: .seconds(1_000_000_000))
    let calls = 10_000
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions,
      retries.map { retry in
        {
          var sum = Duration.zero
          let elapsed = Stopwatch.nanoseconds {
            for offset in 0..<calls {
              sum += backoff.delay(beforeRetry: opaque(retry) + offset)
            }
          }
          blackHole(sum)
          try expect(sum > .zero ? 1 : 0, equals: 1, "summed delays")
          return elapsed / Double(calls)
        }
      })
    addRow(
      "backoff delay growth: retry \(compactCount(retries[1])) vs \(compactCount(retries[0]))",
      unit: "ns/call", samples, into: &report)
    report.notes.append(
      "growth, backoff: `Backoff.delay(beforeRetry:)` of `.exponential(initial: 1 ns, "
        + "multiplier: 1.0000001, maximum: 1e9 s)`, \(compactCount(calls)) calls per sample. "
        + "Before issue 27 it multiplied once per earlier retry (8 s at 100,000,000 retries).")
  }
}
