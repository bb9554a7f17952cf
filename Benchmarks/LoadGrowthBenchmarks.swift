import Flowchart
import FlowchartFiles
import Foundation

/// How loading grows over nesting and fan-out (issue 27, "No trap, no runaway"): reading
/// chart files from disk and binding them, where each subflow's file is read and compiled
/// once however many subflows run it, includes splice their states, and JSON values nest.
///
/// Each workload is measured at a size and at 10× that size, interleaved; a row gives the
/// larger's time as "Flowchart" and the smaller's as "Baseline": the ratio must stay ≤ 12
/// (linear, with room for noise). Before issue 27 the subflow fan-out doubled its time with
/// each level.
enum LoadGrowthBenchmarks {
  /// One workload at two sizes.
  private struct Workload {
    var name: String
    var sizes: (small: Int, large: Int)
    /// Loads the workload at a size once, checking what it loaded.
    var load: (Int) throws -> Void
  }

  static func measure(_ configuration: Configuration, into report: inout Report) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "flowchart-load-growth-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let handlers = HandlerRegistry<ChartValue>()
    let fanOut = configuration.isQuick ? (100, 1_000) : (1_000, 10_000)
    let workloads = [
      Workload(name: "subflow fan-out, levels", sizes: (9, 90)) { levels in
        let top = try subflowFanOut(levels: levels, in: folder)
        let chart = try ChartFile.read(contentsOf: top).flowchart(handlers: handlers)
        try expect(chart.states.count, equals: 3, "subflow fan-out")
      },
      Workload(name: "include fan-out, includes", sizes: fanOut) { count in
        let main = try includeFanOut(count: count, in: folder)
        let chart = try ChartFile.read(contentsOf: main).flowchart(handlers: handlers)
        try expect(chart.states.count, equals: count + 1, "include fan-out")
      },
      Workload(name: "include nesting, levels", sizes: (9, 90)) { levels in
        let main = try includeChain(levels: levels, in: folder)
        let chart = try ChartFile.read(contentsOf: main).flowchart(handlers: handlers)
        try expect(chart.states.count, equals: levels + 1, "include nesting")
      },
      Workload(name: "JSON value nesting, levels", sizes: (50, 500)) { levels in
        // 200 nested values side by side, so that the smaller size takes long enough to time.
        let nested = String(repeating: "[", count: levels) + String(repeating: "]", count: levels)
        let text = "[" + Array(repeating: nested, count: 200).joined(separator: ",") + "]"
        guard case .array(let values) = try ChartValue(jsonText: text), var value = values.first
        else { throw BenchmarkError.mismatch("JSON value nesting: not an array") }
        var depth = 1
        while case .array(let elements) = value, let first = elements.first {
          value = first
          depth += 1
        }
        try expect(depth, equals: levels, "JSON value nesting")
      },
    ]
    let recipes = workloads.flatMap { workload in
      [(workload, workload.sizes.small), (workload, workload.sizes.large)]
    }
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions,
      recipes.map { recipe in
        { try Stopwatch.nanoseconds { try recipe.0.load(recipe.1) } }
      })
    for (index, workload) in workloads.enumerated() {
      report.rows.append(
        ReportRow(
          group: "load-growth",
          workload: "\(workload.name) growth: t(\(compactCount(workload.sizes.large))) "
            + "vs t(\(compactCount(workload.sizes.small)))",
          unit: "ms", flowchart: milliseconds(samples[2 * index + 1]),
          baseline: milliseconds(samples[2 * index]), targetRatio: 12))
    }
    report.notes.append(
      "load-growth: each workload at a size and at 10× it, read from disk (the files are "
        + "written once per sample) and bound with an empty registry: a subflow fan-out "
        + "(each file runs the next twice, by two spellings of its path), a file that "
        + "includes one file many times, a chain of files each including the next, and "
        + "`ChartValue(jsonText:)` of 200 nested arrays side by side. 'Flowchart' is the larger "
        + "size, 'Baseline' the smaller: their ratio must stay ≤ 12.")
  }

  /// Files `s0` … `s<levels>` in `folder`, each running the next twice; returns `s0`'s URL.
  private static func subflowFanOut(levels: Int, in folder: URL) throws -> URL {
    for level in 0...levels {
      let text =
        level == levels
        ? #"{"flowchart": [{"action": "End", "final": true}]}"#
        : #"{"flowchart": [{"subflow": "A", "chart": "s\#(level + 1).json"}, {"subflow": "B", "chart": "./s\#(level + 1).json"}, {"action": "End", "final": true}]}"#
      try write(text, to: folder.appendingPathComponent("s\(level).json"))
    }
    return folder.appendingPathComponent("s0.json")
  }

  /// A file that includes `leaf.json` (one action) `count` times, then ends.
  private static func includeFanOut(count: Int, in folder: URL) throws -> URL {
    try write(
      #"{"flowchart": [{"action": "Step"}]}"#, to: folder.appendingPathComponent("leaf.json"))
    let includes = Array(repeating: #"{"include": "leaf.json"}"#, count: count)
    let main = folder.appendingPathComponent("fan.json")
    try write(
      #"{"flowchart": ["# + includes.joined(separator: ", ")
        + #", {"action": "End", "final": true}]}"#, to: main)
    return main
  }

  /// Files `c0` … `c<levels>`, each with an action and an include of the next (the last
  /// ends); returns `c0`'s URL.
  private static func includeChain(levels: Int, in folder: URL) throws -> URL {
    for level in 0...levels {
      let text =
        level == levels
        ? #"{"flowchart": [{"action": "End", "final": true}]}"#
        : #"{"flowchart": [{"action": "Step \#(level)"}, {"include": "c\#(level + 1).json"}]}"#
      try write(text, to: folder.appendingPathComponent("c\(level).json"))
    }
    return folder.appendingPathComponent("c0.json")
  }

  private static func write(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
  }

  private static func milliseconds(_ samples: Samples) -> Samples {
    var result = Samples()
    for value in samples.values { result.append(value / 1e6) }
    return result
  }
}
