import Flowchart

/// Measures compiling and printing large charts (issue items 4 and 5).
///
/// Every size of both shapes is measured in each repetition, interleaved, so the growth
/// ratio `t(largest) / t(next size down)` compares times taken side by side. Linear growth
/// gives a ratio near 10 for sizes ten apart; the limit is 12.
///
/// A sample of a smaller chart compiles (or prints) it several times, `largest / size`
/// times, and reports the time per compilation: every sample then lasts about as long, so
/// a burst of load from another process on the shared machine is as likely to hit the
/// small charts' samples as the large ones', and does not skew the growth ratio.
enum CompileBenchmarks {
  /// Issue item 4: compile time per state, growth, and bytes retained per compiled state.
  static func measureCompile(_ configuration: Configuration, into report: inout Report) throws {
    let code = ShapeCode.make()
    let recipes = ChartShape.allCases.flatMap { shape in
      configuration.chartSizes.map { ChartRecipe(shape, states: $0) }
    }
    // The floors: each chart of the two largest sizes built by hand (``HandChart``), checked
    // to be the compiled graph before anything is timed. Both sizes, because the largest
    // chart's floor mostly waits for memory (BENCHMARKS.md, "Floors"): the next size down
    // compares the work.
    let floors = recipes.filter { configuration.chartSizes.suffix(2).contains($0.states) }
    for recipe in floors {
      try HandChart(recipe, code).expectSame(
        as: try recipe.compile(code), "compile \(recipe.shape) by hand")
    }
    let compilations: [() throws -> Double] = recipes.map { recipe in
      {
        let runs = runsPerSample(recipe, configuration)
        var charts: [Flowchart<ShapeContext>] = []
        charts.reserveCapacity(runs)
        let elapsed = try Stopwatch.nanoseconds {
          for _ in 0..<runs {
            charts.append(try recipe.compile(code))
          }
        }
        // The charts are released after the clock stopped.
        try expect(charts.last?.states.count, equals: recipe.states, "compiled \(recipe.shape)")
        return elapsed / Double(runs)
      }
    }
    let handBuilt: [() throws -> Double] = floors.map { recipe in
      {
        // As many builds a sample as the compile's sample of the same chart compiles.
        let runs = runsPerSample(recipe, configuration)
        var charts: [HandChart] = []
        charts.reserveCapacity(runs)
        let elapsed = Stopwatch.nanoseconds {
          for _ in 0..<runs {
            charts.append(HandChart(recipe, code))
          }
        }
        try expect(charts.last?.nodes.count, equals: recipe.states, "built \(recipe.shape)")
        return elapsed / Double(runs)
      }
    }
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions, compilations + handBuilt)
    addRows(
      action: "compile", recipes: recipes, samples: Array(samples[..<recipes.count]),
      configuration: configuration, into: &report)
    addFloorRows(
      action: "compile", floor: "by hand", recipes: recipes, floors: floors,
      samples: samples, targetRatio: 2, into: &report)

    // Bytes retained: allocated bytes after compiling, while holding the chart, minus
    // before; the declarations built for the compiler are freed by then.
    for recipe in recipes where recipe.states == configuration.chartSizes.last {
      guard let bytes = try retainedBytes(compiling: recipe, code: code) else {
        report.notes.append("compile: bytes per state are not measured on this platform.")
        break
      }
      var perState = Samples()
      perState.append(Double(bytes) / Double(recipe.states))
      report.rows.append(
        ReportRow(
          group: "compile",
          workload: "retained by a compiled \(recipe.shape), \(compactCount(recipe.states)) states",
          unit: "bytes/state", flowchart: perState, baseline: nil, targetRatio: nil))
    }
    report.notes.append(
      "compile: `try Flowchart { … }` for a chain (n - 1 actions in sequence, then a final "
        + "action) and a wide tree (a multiple condition at the root, one exit per subtree of "
        + "≤ 1,000 states; each subtree a balanced binary tree of conditions, each followed by "
        + "a join action both branches fall through to, two-state leaves `GoTo` the final state), "
        + "names made beforehand. A sample of a smaller chart compiles it largest / size times, "
        + "so that all samples last about as long. The growth rows give "
        + "t(\(sizeLabel(configuration, 1))) as 'Flowchart' and "
        + "t(\(sizeLabel(configuration, 2))) as 'Baseline': their ratio must "
        + "stay ≤ 12 for sizes ten apart. Retained bytes: glibc `mallinfo2` in-use bytes "
        + "(arenas + mmapped blocks) after compiling, holding the chart, minus before. "
        + "'vs by hand' rows, at the two largest sizes: the floor builds the same graph from "
        + "the same names by hand "
        + "(nodes in one array holding name, kind, exits and closure, in the compiler's "
        + "numbering; the `GoTo` targets resolved through one dictionary of every name; no "
        + "checks, no locations, no declarations kept), checked against the compiled chart "
        + "state by state (names, kinds, finality, exits) before timing.")
  }

  /// Issue item 5: printing the large charts as text trees.
  static func measurePrint(_ configuration: Configuration, into report: inout Report) throws {
    let code = ShapeCode.make()
    let recipes = ChartShape.allCases.flatMap { shape in
      configuration.chartSizes.map { ChartRecipe(shape, states: $0) }
    }
    // A sample of a smaller chart prints largest / size distinct copies of it, so that it
    // lasts about as long as, and reads as much memory as, a sample of the largest chart;
    // printing one small chart again and again would run from warm caches.
    let charts = try recipes.map { recipe in
      try (0..<runsPerSample(recipe, configuration)).map { _ in try recipe.compile(code) }
    }
    // The floors: each largest chart built by hand and written by a plain loop
    // (``HandChart/treeText``), checked to be the printer's text byte for byte.
    let floors = recipes.filter { $0.states == configuration.chartSizes.last }
    let handCharts = try floors.map { recipe in
      let chart = HandChart(recipe, code)
      let printed = try recipe.compile(code).treeDescription
      guard chart.treeText == printed else {
        throw BenchmarkError.mismatch(
          "print \(recipe.shape) by a plain loop: not the printer's text")
      }
      return (chart: chart, bytes: printed.utf8.count)
    }
    let handPrinted: [() throws -> Double] = handCharts.map { floor in
      {
        var trees: [String] = []
        let elapsed = Stopwatch.nanoseconds { trees.append(floor.chart.treeText) }
        try expect(trees.last?.utf8.count, equals: floor.bytes, "printed by a plain loop")
        return elapsed
      }
    }
    var outputSizes = [Int](repeating: 0, count: recipes.count)
    let printings: [() throws -> Double] =
      recipes.indices.map { index in
        {
          let copies = charts[index]
          var trees: [String] = []
          trees.reserveCapacity(copies.count)
          let elapsed = Stopwatch.nanoseconds {
            for chart in copies {
              trees.append(chart.treeDescription)
            }
          }
          let tree = trees.last ?? ""
          let lines = tree.utf8.count(where: { $0 == UInt8(ascii: "\n") })
          // Every state prints once, plus one `*` line per join or cycle back.
          guard lines >= recipes[index].states else {
            throw BenchmarkError.mismatch("printed \(lines) lines for \(recipes[index].states)")
          }
          outputSizes[index] = tree.utf8.count
          return elapsed / Double(copies.count)
        }
      }
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions, printings + handPrinted)
    addRows(
      action: "print", recipes: recipes, samples: Array(samples[..<recipes.count]),
      configuration: configuration, into: &report)
    addFloorRows(
      action: "print", floor: "a plain loop", recipes: recipes, floors: floors,
      samples: samples, targetRatio: 2, into: &report)
    let sizes = recipes.indices.filter { recipes[$0].states == configuration.chartSizes.last }
      .map {
        "\(recipes[$0].shape) \(compactCount(recipes[$0].states)): "
          + "\(outputSizes[$0] / 1_024) KiB"
      }
    report.notes.append(
      "print: `chart.treeDescription` of the compiled charts above, a sample of a smaller "
        + "chart printing largest / size distinct copies of it (output sizes: "
        + sizes.joined(separator: ", ") + "); the printer is iterative, so no run overflows "
        + "the stack. 'vs a plain loop' rows: the floor writes the same lines from the chart "
        + "built by hand (see compile) with a plain loop and a stack of lines to come, no "
        + "quoting check, no modifiers; its text is checked byte for byte against the "
        + "printer's before timing, and its length in every sample.")
  }

  /// Adds, per recipe, a time-per-state row, and per shape a growth row comparing the two
  /// largest sizes.
  private static func addRows(
    action: String, recipes: [ChartRecipe], samples: [Samples], configuration: Configuration,
    into report: inout Report
  ) {
    for (recipe, timings) in zip(recipes, samples) {
      var perState = Samples()
      for value in timings.values {
        perState.append(value / Double(recipe.states))
      }
      report.rows.append(
        ReportRow(
          group: action,
          workload: "\(action) \(recipe.shape), \(compactCount(recipe.states)) states",
          unit: "ns/state", flowchart: perState, baseline: nil, targetRatio: nil))
    }
    let sizes = configuration.chartSizes
    guard sizes.count >= 2 else { return }
    for shape in ChartShape.allCases {
      guard
        let large = recipes.firstIndex(where: { $0.shape == shape && $0.states == sizes.last }),
        let small = recipes.firstIndex(where: {
          $0.shape == shape && $0.states == sizes[sizes.count - 2]
        })
      else { continue }
      report.rows.append(
        ReportRow(
          group: action,
          workload: "\(action) \(shape) growth: t(\(sizeLabel(configuration, 1))) "
            + "vs t(\(sizeLabel(configuration, 2)))",
          unit: "ms", flowchart: milliseconds(samples[large]),
          baseline: milliseconds(samples[small]), targetRatio: 12))
    }
  }

  /// Adds, per floor, a row comparing the time per state of its recipe with the floor's:
  /// `samples` holds the recipes' samples, then the floors'.
  private static func addFloorRows(
    action: String, floor: String, recipes: [ChartRecipe], floors: [ChartRecipe],
    samples: [Samples], targetRatio: Double, into report: inout Report
  ) {
    func perState(_ samples: Samples, _ states: Int) -> Samples {
      var result = Samples()
      for value in samples.values { result.append(value / Double(states)) }
      return result
    }
    for (offset, recipe) in floors.enumerated() {
      guard
        let measured = recipes.firstIndex(where: {
          $0.shape == recipe.shape && $0.states == recipe.states
        })
      else { continue }
      report.rows.append(
        ReportRow(
          group: action,
          workload: "\(action) \(recipe.shape), \(compactCount(recipe.states)) states "
            + "vs \(floor)",
          unit: "ns/state", flowchart: perState(samples[measured], recipe.states),
          baseline: perState(samples[recipes.count + offset], recipe.states),
          targetRatio: targetRatio))
    }
  }

  /// How many times a sample compiles or prints `recipe`'s chart: enough to last about as
  /// long as one compilation of the largest size.
  private static func runsPerSample(_ recipe: ChartRecipe, _ configuration: Configuration) -> Int {
    max(1, (configuration.chartSizes.last ?? recipe.states) / recipe.states)
  }

  /// Allocated bytes retained by compiling `recipe`, or `nil` where unmeasurable.
  private static func retainedBytes(compiling recipe: ChartRecipe, code: ShapeCode) throws -> Int? {
    _ = try recipe.compile(code)  // Warm up lazily allocated runtime structures.
    guard let before = MemoryStatistics.allocatedBytes() else { return nil }
    let chart = try recipe.compile(code)
    guard let after = MemoryStatistics.allocatedBytes() else { return nil }
    return withExtendedLifetime(chart) { after - before }
  }

  private static func milliseconds(_ samples: Samples) -> Samples {
    var result = Samples()
    for value in samples.values {
      result.append(value / 1e6)
    }
    return result
  }

  /// `100k` for the largest chart size (`fromEnd` 1), `10k` for the next (`fromEnd` 2).
  private static func sizeLabel(_ configuration: Configuration, _ fromEnd: Int) -> String {
    let sizes = configuration.chartSizes
    guard sizes.count >= fromEnd else { return "?" }
    return compactCount(sizes[sizes.count - fromEnd])
  }
}
