// The Flowchart benchmark executable.
//
//     swift run -c release flowchart-benchmarks [--quick] [--markdown <path>]
//         [--filter <groups>] [--repetitions <n>] [--transitions <n>]
//
// Every figure is a ratio against a baseline measured in the same process, interleaved
// (A B A B …) over several repetitions, with median and min reported: absolute times
// alone mean little on a shared machine. Files:
//
// - Harness.swift: timing, interleaving, statistics, the sizes of a full and a quick run;
// - Report.swift: the results table, as text and as Markdown;
// - Platform.swift: the optimizer barriers, memory statistics, re-running this executable;
// - TransitionBenchmarks.swift: the sync and async 4-state cycle against hand-written loops;
// - DispatchBenchmarks.swift: dispatch fan-out and join against a raw task group;
// - CompositionBenchmarks.swift: a dispatch with a concurrency limit and a map against task
//   groups that keep as many children in flight;
// - ChartShapes.swift, CompileBenchmarks.swift: compiling and printing large charts;
// - MemoryBenchmarks.swift: peak resident memory of long runs, in child processes;
// - FileBenchmarks.swift: loading chart files (JSON and XML) of growing size;
// - FloorBenchmarks.swift, LoadFloors.swift: the floors of the compile, print and load rows
//   (a graph built by hand, a plain printing loop, Foundation's parsers), each checked to do
//   the same work as the row it is the baseline of;
// - LoadGrowthBenchmarks.swift: loading over nesting and fan-out (subflows, includes, values);
// - ToolBenchmarks.swift: the `flowchart` tool's `validate` on a large file;
// - GrowthBenchmarks.swift: growth rows for issue 27's corners (nested subflows printed,
//   many prerequisites resolved, a backoff's delay before a late retry);
// - LiveBenchmarks.swift: runs through a run handle, observed or not, against run(with:);
//   LivePauseBenchmarks.swift: pause → resume latency;
// - SuspensionBenchmarks.swift: memory of many live runs suspended on a Wait (`memory` group);
// - StoreBenchmarks.swift: saving through the directory and SQLite run stores against the same
//   writes by hand (`stores` group; the SQLite row with `--traits SQLite`);
// - DurableBenchmarks.swift: snapshots and restores against the bare context, and a live run
//   saving at every wait against one that does not (`durable` group).
//
// Profiling: a run that selects only synchronous groups starts no Swift task, so
// `valgrind --tool=callgrind <executable> --filter sync --transitions 1000000
// --repetitions 1` works (Valgrind crashes on Swift's concurrency runtime). The cost per
// transition of either side is then the inclusive cost of `runSyncChart` or
// `runSyncBaseline` divided by (repetitions + 1) × transitions (the +1 is the warm-up).

import Foundation

/// The command line, parsed.
struct Options: Sendable {
  /// The workload groups, in the order they run.
  static let groups = [
    "sync", "sync-capturing", "async", "dispatch", "composition", "live", "compile", "print",
    "memory", "load", "load-growth", "tool", "growth", "stores", "durable",
  ]

  static let usage = """
    usage: flowchart-benchmarks [--quick] [--markdown <path>] [--filter <groups>]
                                [--repetitions <n>] [--transitions <n>]

      --quick             small sizes and few repetitions: checks that everything runs
      --markdown <path>   also write the results table as Markdown to <path>
      --filter <groups>   comma-separated filters: one that is a group's name selects that
                          group, any other selects every group whose name contains it.
                          Groups: \(groups.joined(separator: ", "))
      --repetitions <n>   measured repetitions per contender (default 7, quick 3)
      --transitions <n>   transitions per run of the sync and async cycles (for profiling)
    """

  var configuration = Configuration.full
  var markdownPath: String?
  var filters: [String] = []
  /// Set in a memory-probe child: the number of steps to run, and which side.
  var memoryProbe: (steps: Int, side: MemoryBenchmarks.Side)?
  /// Set in a suspension-probe child: how many runs to suspend, and which side.
  var suspensionProbe: (count: Int, side: SuspensionBenchmarks.Side)?
  var showsHelp = false

  /// Parses `arguments` (without the executable's path).
  ///
  /// - Throws: ``BenchmarkError/usage(_:)`` for an unknown option or a bad value.
  init(parsing arguments: [String]) throws {
    var remaining = arguments[...]
    var repetitions: Int?
    var transitions: Int?
    var probeSteps: Int?
    var probeSide = MemoryBenchmarks.Side.flowchart
    var suspensionCount: Int?
    var suspensionSide = SuspensionBenchmarks.Side.flowchart
    func value(for option: String) throws -> String {
      guard let value = remaining.popFirst() else {
        throw BenchmarkError.usage("\(option) needs a value")
      }
      return value
    }
    func count(for option: String) throws -> Int {
      let text = try value(for: option)
      guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number > 0 else {
        throw BenchmarkError.usage("\(option) needs a positive whole number, not '\(text)'")
      }
      return number
    }
    while let argument = remaining.popFirst() {
      switch argument {
      case "--quick": configuration = .quick
      case "--markdown": markdownPath = try value(for: argument)
      case "--filter":
        filters += try value(for: argument).split(separator: ",").map {
          $0.trimmingCharacters(in: .whitespaces)
        }
      case "--repetitions": repetitions = try count(for: argument)
      case "--transitions": transitions = try count(for: argument)
      case "--memory-probe": probeSteps = try count(for: argument)
      case "--memory-probe-baseline": probeSide = .baseline
      case "--suspension-probe": suspensionCount = try count(for: argument)
      case "--suspension-probe-baseline": suspensionSide = .baseline
      case "--help", "-h": showsHelp = true
      default: throw BenchmarkError.usage("unknown argument '\(argument)'")
      }
    }
    if let repetitions { configuration.repetitions = repetitions }
    if let transitions {
      configuration.syncTransitions = transitions
      configuration.asyncTransitions = transitions
    }
    if let probeSteps { memoryProbe = (probeSteps, probeSide) }
    if let suspensionCount { suspensionProbe = (suspensionCount, suspensionSide) }
    if !filters.isEmpty && selectedGroups.isEmpty {
      throw BenchmarkError.usage(
        "--filter \(filters.joined(separator: ",")) selects no group of "
          + Self.groups.joined(separator: ", "))
    }
  }

  /// The groups to run, in order.
  var selectedGroups: [String] {
    guard !filters.isEmpty else { return Self.groups }
    let exact = Self.groups.filter { filters.contains($0) }
    let partial = Self.groups.filter { group in
      filters.contains { !Self.groups.contains($0) && group.contains($0) }
    }
    return Self.groups.filter { exact.contains($0) || partial.contains($0) }
  }
}

/// Runs the selected workload groups and prints (and perhaps writes) the report.
///
/// Synchronous workloads run on the main thread, and a run that selects only those starts
/// no task at all: Valgrind's tools (callgrind) crash on Swift's concurrency runtime, and
/// this keeps `--filter sync` profilable. Asynchronous workloads run in a detached task
/// while the main thread waits.
struct BenchmarkRunner: Sendable {
  let options: Options

  func run() throws {
    let configuration = options.configuration
    var report = Report(configuration: configuration)
    let clock = ContinuousClock()
    let started = clock.now
    for group in options.selectedGroups {
      log("running \(group)…")
      switch group {
      case "sync":
        try TransitionBenchmarks.measureSync(configuration, capturing: false, into: &report)
      case "sync-capturing":
        try TransitionBenchmarks.measureSync(configuration, capturing: true, into: &report)
      case "async":
        report.append(
          try waitForTask(configuration) {
            try await TransitionBenchmarks.measureAsync($0, into: &$1)
          })
      case "dispatch":
        report.append(
          try waitForTask(configuration) { try await DispatchBenchmarks.measure($0, into: &$1) })
      case "composition":
        report.append(
          try waitForTask(configuration) {
            try await CompositionBenchmarks.measure($0, into: &$1)
          })
      case "compile": try CompileBenchmarks.measureCompile(configuration, into: &report)
      case "print": try CompileBenchmarks.measurePrint(configuration, into: &report)
      case "memory": try MemoryBenchmarks.measure(configuration, into: &report)
      case "load": try FileBenchmarks.measureLoad(configuration, into: &report)
      case "load-growth": try LoadGrowthBenchmarks.measure(configuration, into: &report)
      case "tool": try ToolBenchmarks.measureValidate(configuration, into: &report)
      case "growth": try GrowthBenchmarks.measure(configuration, into: &report)
      case "stores": try StoreBenchmarks.measure(configuration, into: &report)
      case "durable":
        report.append(
          try waitForTask(configuration) { try await DurableBenchmarks.measure($0, into: &$1) })
      case "live":
        report.append(
          try waitForTask(configuration) { try await LiveBenchmarks.measure($0, into: &$1) })
      default: throw BenchmarkError.usage("no workload group named \(group)")
      }
    }
    log("done in \(clock.now - started)")
    print(report.text)
    if let path = options.markdownPath {
      try report.markdown.write(toFile: path, atomically: true, encoding: .utf8)
      log("wrote \(path)")
    }
  }

  /// Runs an asynchronous workload group in a detached task, off the main actor, blocks
  /// the main thread until it is done, and returns the rows and notes it reported.
  private func waitForTask(
    _ configuration: Configuration,
    _ measure: @escaping @Sendable (Configuration, inout Report) async throws -> Void
  ) throws -> Report {
    let outcome = TaskOutcome()
    Task.detached {
      do {
        var partial = Report(configuration: configuration)
        try await measure(configuration, &partial)
        outcome.finish(.success(partial))
      } catch {
        outcome.finish(.failure(error))
      }
    }
    return try outcome.wait().get()
  }

  /// Progress goes to standard error, so standard output is only the report.
  private func log(_ message: String) {
    FileHandle.standardError.write(Data("[flowchart-benchmarks] \(message)\n".utf8))
  }
}

/// Hands a detached task's result to the thread waiting for it.
private final class TaskOutcome: @unchecked Sendable {
  // `result` is written once, before `done` is signalled, and read only after waiting for
  // that signal, so the semaphore orders the accesses.
  private var result: Result<Report, any Error>?
  private let done = DispatchSemaphore(value: 0)

  func finish(_ result: Result<Report, any Error>) {
    self.result = result
    done.signal()
  }

  func wait() -> Result<Report, any Error> {
    done.wait()
    return result ?? .failure(BenchmarkError.mismatch("a task ended without a result"))
  }
}

do {
  let options = try Options(parsing: Array(CommandLine.arguments.dropFirst()))
  if options.showsHelp {
    print(Options.usage)
  } else if let probe = options.memoryProbe {
    try MemoryBenchmarks.runProbe(steps: probe.steps, side: probe.side)
  } else if let probe = options.suspensionProbe {
    try SuspensionBenchmarks.runProbe(count: probe.count, side: probe.side)
  } else {
    try BenchmarkRunner(options: options).run()
  }
} catch let error as BenchmarkError {
  FileHandle.standardError.write(Data("flowchart-benchmarks: \(error)\n".utf8))
  if case .usage = error {
    FileHandle.standardError.write(Data((Options.usage + "\n").utf8))
    exit(2)
  }
  exit(1)
} catch {
  FileHandle.standardError.write(Data("flowchart-benchmarks: \(error)\n".utf8))
  exit(1)
}
