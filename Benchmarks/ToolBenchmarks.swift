import Flowchart
import FlowchartFiles
import Foundation

/// The `flowchart` tool's `validate` on a large chart file (issue 11, "Speed"): the whole
/// command, from starting the process to its exit, against reading and compiling the same
/// file in this process, as the tool does it.
///
/// The tool is the `flowchart` executable next to this one: build it in the same
/// configuration first (`swift build -c release --product flowchart`). Without it the group
/// says so in a note and measures nothing.
enum ToolBenchmarks {
  static func measureValidate(_ configuration: Configuration, into report: inout Report) throws {
    let states = configuration.chartSizes.last ?? 100_000
    let tool = URL(fileURLWithPath: SelfProcess.executablePath).deletingLastPathComponent()
      .appendingPathComponent("flowchart").path
    guard FileManager.default.isExecutableFile(atPath: tool) else {
      report.notes.append(
        "tool: not measured, \(tool) is missing. Build it first: "
          + "swift build -c release --product flowchart.")
      return
    }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("flowchart-benchmarks-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("chart.json")
    try Data(chartText(states: states).utf8).write(to: file)
    let expected = "\(file.relativePath): valid, \(states) states\n"

    let samples = try Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var output = ""
          let elapsed = try Stopwatch.nanoseconds {
            output = try runTool(tool, ["validate", file.relativePath])
          }
          guard output == expected else {
            throw BenchmarkError.mismatch("flowchart validate printed \(output)")
          }
          return elapsed / 1e6
        },
        {
          var count = 0
          let elapsed = try Stopwatch.nanoseconds {
            let chart = try ChartFile.read(contentsOf: file)
            var handlers = HandlerRegistry<ChartValue>()
            handlers.fallback = { request in
              switch request.kind {
              case .action: .action { _ in }
              case .condition: .condition { _ in true }
              case .multipleCondition: .multipleCondition { _ in "" }
              case .merge: .merge { _, _ in }
              case .input: .input(ChartValue.self) { _, _ in }
              case .errorFilter: .errors { _ in true }
              case .catchHandler: .catch { _, _ in }
              case .mapping: .mapping(.whole)
              case .collection: .collection(over: { _ in [] }, collect: { _, _ in })
              }
            }
            count = try chart.flowchart(handlers: handlers).states.count
          }
          try expect(count, equals: states, "read and compiled the file")
          return elapsed / 1e6
        },
      ])
    report.rows.append(
      ReportRow(
        group: "tool", workload: "flowchart validate, \(compactCount(states))-state JSON file",
        unit: "ms", flowchart: samples[0], baseline: samples[1], targetRatio: nil))
    report.notes.append(
      "tool: `flowchart validate FILE` run as a child process, from its start to its exit, "
        + "on a JSON chart of \(compactCount(states)) states (a chain of conditions bound to "
        + "code by name, each with a one-action `no` branch, and actions; "
        + "\(fileSize(file) / 1_000) kB). Baseline: `ChartFile.read` and "
        + "`flowchart(handlers:)` with stand-ins in this process, what the tool does besides "
        + "starting and printing. No target: the issue asks for the time.")
  }

  /// A chart of `states` states: groups of a condition with a one-action `no` branch and
  /// an action, then a final action.
  static func chartText(states: Int) -> String {
    var items: [String] = []
    var count = 1
    var group = 0
    while count + 3 <= states {
      items.append(
        "{\"condition\": \"Check \(group)\", \"run\": \"check\", "
          + "\"no\": [{\"action\": \"Fix \(group)\", \"run\": \"fix\"}]}")
      items.append("{\"action\": \"Step \(group)\", \"run\": \"step\"}")
      count += 3
      group += 1
    }
    while count < states {
      items.append("{\"action\": \"Pad \(count)\"}")
      count += 1
    }
    items.append("{\"action\": \"Done\", \"final\": true}")
    return "{\"flowchart\": [\n" + items.joined(separator: ",\n") + "\n]}\n"
  }

  /// Runs `tool` with `arguments`; returns its standard output.
  private static func runTool(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw BenchmarkError.childProcessFailed(
        "flowchart \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)"
      )
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// The size of the file at `url`, in bytes.
  private static func fileSize(_ url: URL) -> Int64 {
    let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
    return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
  }
}
