import Flowchart
import FlowchartFiles
import Foundation

/// Measures loading chart files (issue 11, "Speed"): reading a JSON or XML file's bytes,
/// binding its names to closures and compiling it, per state, and how that grows from 10,000
/// to 100,000 states.
///
/// As in ``CompileBenchmarks``, a sample of a smaller file loads it `largest / size` times, so
/// that all samples last about as long, and every size of both syntaxes is measured in each
/// repetition, interleaved.
enum FileBenchmarks {
  static func measureLoad(_ configuration: Configuration, into report: inout Report) throws {
    var handlers = HandlerRegistry<Int>()
    handlers["work"] = .action { $0 &+= 1 }
    handlers["decide"] = .condition { $0 & 1 == 0 }
    let recipes = ChartSyntax.allCases.flatMap { syntax in
      configuration.chartSizes.map { (syntax: syntax, states: $0) }
    }
    let files = recipes.map { recipe in
      Array(chartFile(states: recipe.states).text(in: recipe.syntax).utf8)
    }
    let largest = configuration.chartSizes.last ?? 1
    // The floors (see LoadFloors.swift): Foundation's parser over the bytes of each largest
    // file, then the same binding and compile; checked to give the loaded chart first.
    let floors = recipes.indices.filter { recipes[$0].states == largest }
    let floorData = floors.map { Data(files[$0]) }
    func loadFloor(_ offset: Int) throws -> Flowchart<Int> {
      let file =
        switch recipes[floors[offset]].syntax {
        case .json: try LoadFloors.parseJSON(floorData[offset])
        case .xml: try LoadFloors.parseXML(floorData[offset])
        }
      return try file.flowchart(handlers: handlers)
    }
    for (offset, index) in floors.enumerated() {
      let (syntax, _) = recipes[index]
      let loaded = try ChartFile.parse(files[index], syntax: syntax, path: "bench")
        .flowchart(handlers: handlers)
      try LoadFloors.expectSame(
        try loadFloor(offset), as: loaded, "load \(syntax.rawValue) through Foundation")
    }
    let floorLoads: [() throws -> Double] = floors.indices.map { offset in
      {
        var charts: [Flowchart<Int>] = []
        let elapsed = try Stopwatch.nanoseconds { charts.append(try loadFloor(offset)) }
        try expect(charts.last?.states.count, equals: largest, "loaded through Foundation")
        return elapsed
      }
    }
    let loads: [() throws -> Double] =
      recipes.indices.map { index in
        {
          let (syntax, states) = recipes[index]
          let runs = max(1, largest / states)
          var charts: [Flowchart<Int>] = []
          charts.reserveCapacity(runs)
          let elapsed = try Stopwatch.nanoseconds {
            for _ in 0..<runs {
              let file = try ChartFile.parse(files[index], syntax: syntax, path: "bench")
              charts.append(try file.flowchart(handlers: handlers))
            }
          }
          try expect(charts.last?.states.count, equals: states, "loaded \(syntax)")
          return elapsed / Double(runs)
        }
      }
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions, loads + floorLoads)
    for (recipe, timings) in zip(recipes, samples) {
      var perState = Samples()
      for value in timings.values { perState.append(value / Double(recipe.states)) }
      report.rows.append(
        ReportRow(
          group: "load",
          workload: "load \(recipe.syntax.rawValue), \(compactCount(recipe.states)) states",
          unit: "ns/state", flowchart: perState, baseline: nil, targetRatio: nil))
    }
    for (offset, index) in floors.enumerated() {
      let (syntax, states) = recipes[index]
      var measured = Samples()
      var floor = Samples()
      for value in samples[index].values { measured.append(value / Double(states)) }
      for value in samples[recipes.count + offset].values { floor.append(value / Double(states)) }
      report.rows.append(
        ReportRow(
          group: "load",
          workload: "load \(syntax.rawValue), \(compactCount(states)) states vs "
            + (syntax == .json ? "JSONSerialization" : "XMLParser"),
          unit: "ns/state", flowchart: measured, baseline: floor, targetRatio: 1.5))
    }
    let sizes = configuration.chartSizes
    if sizes.count >= 2 {
      for syntax in ChartSyntax.allCases {
        guard
          let large = recipes.firstIndex(where: { $0.syntax == syntax && $0.states == sizes.last }),
          let small = recipes.firstIndex(where: {
            $0.syntax == syntax && $0.states == sizes[sizes.count - 2]
          })
        else { continue }
        report.rows.append(
          ReportRow(
            group: "load",
            workload: "load \(syntax.rawValue) growth: t(\(compactCount(sizes[sizes.count - 1]))) "
              + "vs t(\(compactCount(sizes[sizes.count - 2])))",
            unit: "ms", flowchart: milliseconds(samples[large]),
            baseline: milliseconds(samples[small]), targetRatio: 12))
      }
    }
    report.notes.append(
      "load: `ChartFile.parse` of a file's bytes, then `flowchart(handlers:)` (binding every "
        + "name to a closure and compiling), for a chart of conditions whose yes and no "
        + "branches each hold one action and fall through to the next condition; a sample of a "
        + "smaller file loads it largest / size times. The growth rows give the largest size as "
        + "'Flowchart' and the next as 'Baseline': their ratio must stay ≤ 12. 'vs "
        + "JSONSerialization' / 'vs XMLParser' rows: the floor parses the same bytes (as "
        + "`Data`, made beforehand) with Foundation's parser (for XML a delegate that sees "
        + "every element), builds the same file tree from what it read, then binds and "
        + "compiles it with the same `flowchart(handlers:)`: the real compile, so that the "
        + "ratio is the reader's cost over Foundation's (the compile has its own floor). "
        + "Checked before timing to give the loaded chart (states, names, kinds, exits).")
  }

  /// A chart of `states` states: conditions with an action in each branch, then actions, and
  /// a final action.
  static func chartFile(states: Int) -> ChartFile {
    let at = SourceLocation(fileID: "bench", line: 1)
    var nodes: [ChartNode] = []
    nodes.reserveCapacity(states)
    var count = 0
    while count + 3 <= states - 1 {
      let condition = ChartCondition(
        name: "Check \(count)", decision: .handler("decide"),
        yes: [ChartNode(.action(ChartAction(name: "Yes \(count)", handler: "work")), at: at)],
        no: [ChartNode(.action(ChartAction(name: "No \(count)", handler: "work")), at: at)])
      nodes.append(ChartNode(.condition(condition), at: at))
      count += 3
    }
    while count < states - 1 {
      nodes.append(ChartNode(.action(ChartAction(name: "Step \(count)", handler: "work")), at: at))
      count += 1
    }
    nodes.append(ChartNode(.action(ChartAction(name: "Done", isFinal: true)), at: at))
    return ChartFile(path: "bench", states: nodes)
  }

  private static func milliseconds(_ samples: Samples) -> Samples {
    var result = Samples()
    for value in samples.values { result.append(value / 1e6) }
    return result
  }
}
