import Flowchart
import FlowchartFiles
import Foundation

extension Tool {
  /// Runs the command `name` with its parsed arguments.
  ///
  /// `output` takes what a command writes as it goes (`run --log`); without it, that text
  /// starts the outcome's output.
  static func execute(
    _ name: String, _ arguments: ParsedArguments, output: OutputSink? = nil
  ) async -> Outcome {
    let file = arguments.positionals.first ?? ""
    switch name {
    case "validate":
      return validate(arguments.positionals)
    case "print":
      return withChart(file) { $0.treeDescription }
    case "diagram":
      let isDOT = arguments.value(of: "--format") == "dot"
      if let runLog = arguments.value(of: "--run") {
        return diagram(file, run: runLog, isDOT: isDOT)
      }
      return withChart(file) { isDOT ? $0.dotDescription : $0.mermaidDescription }
    case "convert":
      return convert(file, to: arguments.value(of: "--to") == "xml" ? .xml : .json)
    case "run":
      return await runChart(
        file, context: arguments.value(of: "--context") ?? "{}",
        decisions: arguments.values(of: "--decide"), failures: arguments.values(of: "--fail"),
        inputs: arguments.values(of: "--send"), stepLimit: arguments.value(of: "--step-limit"),
        log: arguments.isSet("--log"),
        files: RunFiles(
          logFile: arguments.value(of: "--log-file"), report: arguments.value(of: "--report")),
        store: arguments.value(of: "--store"), output: output)
    case "runs":
      return await listRuns(in: file)
    case "resume":
      return await resumeRun(
        in: file, id: arguments.positionals.dropFirst().first ?? "",
        inputs: arguments.values(of: "--send"), decisions: arguments.values(of: "--decide"),
        log: arguments.isSet("--log"),
        files: RunFiles(
          logFile: arguments.value(of: "--log-file"), report: arguments.value(of: "--report")),
        output: output)
    case "routes":
      return listRoutes(
        file, cycles: arguments.value(of: "--cycles"), json: arguments.isSet("--json"))
    case "export":
      return exportChart(file, resourcesPath: arguments.value(of: "--resources"))
    case "handle":
      return await handleTask(
        file, payload: arguments.value(of: "--payload"),
        decisions: arguments.values(of: "--decide"), failures: arguments.values(of: "--fail"))
    default:
      preconditionFailure("every command in Tool.commands has a case: \(name)")
    }
  }

  // MARK: - Loading

  /// Reads the chart file at `path`, with the files it includes, and compiles it with a
  /// stand-in for every handler it names (see ``standIn(for:)``).
  /// With `decisions`, the stand-ins of conditions and multiple conditions in the charts
  /// the file's subflows and maps run take the decisions forced on them by name.
  static func load(
    _ path: String, decisions: InnerDecisions? = nil
  ) throws(DefinitionError) -> Flowchart<ChartValue> {
    let file = try ChartFile.read(contentsOf: URL(fileURLWithPath: path))
    var handlers = HandlerRegistry<ChartValue>()
    handlers.fallback = { request in standIn(for: request, decisions: decisions) }
    return try file.flowchart(handlers: handlers)
  }

  /// Loads the chart at `path` as ``load(_:decisions:)`` does; if it cannot, writes its
  /// problems to `outcome` (see ``report(_:to:)``), marks the outcome failed and returns nil.
  static func load(
    _ path: String, decisions: InnerDecisions? = nil, reportingTo outcome: inout Outcome
  ) -> Flowchart<ChartValue>? {
    do {
      return try load(path, decisions: decisions)
    } catch {
      report(error, to: &outcome)
      outcome.exitCode = .failure
      return nil
    }
  }

  /// What runs in place of the Swift code a file names, which the tool does not have: an
  /// action does nothing, a merge keeps the context as it is, and a condition or a multiple
  /// condition stops the run with ``CodeNeeded``, unless `--decide` forces its decision
  /// (through `decisions`, for a state of a chart that a subflow or a map runs).
  static func standIn(
    for request: HandlerRequest, decisions: InnerDecisions? = nil
  ) -> Handler<ChartValue>? {
    decisions?.record(request)
    return switch request.kind {
    case .action: .action { _ in }
    case .merge: .merge { _, _ in }
    case .input: .input(ChartValue.self) { _, _ in }
    case .errorFilter: .errors { _ in true }
    case .catchHandler: .catch { _, _ in }
    // A subflow's chart runs on the whole context; a map over a name runs over nothing.
    case .mapping: .mapping(.whole)
    case .collection: .collection(over: { _ in [] }, collect: { _, _ in })
    case .condition:
      .condition { _ throws(CodeNeeded) in
        guard let decision = decisions?.next(for: request.stateName) else {
          throw CodeNeeded(request: request)
        }
        return decision == "yes"
      }
    case .multipleCondition:
      .multipleCondition { _ throws(CodeNeeded) in
        guard let key = decisions?.next(for: request.stateName) else {
          throw CodeNeeded(request: request)
        }
        return key
      }
    }
  }

  /// Writes the problems of `error` as a compiler does, one `file:line:column: error:` line
  /// each, so that editors and CI annotate the file: the first 100, then a line that counts
  /// the others (as `DefinitionError`'s description does).
  static func report(_ error: DefinitionError, to outcome: inout Outcome) {
    for problem in error.problems.prefix(DefinitionError.describedProblemLimit) {
      outcome.complain("\(problem.location): error: \(problem.message)")
    }
    if let more = DefinitionError.moreProblems(error.problems.count) {
      outcome.complain("\(error.location): note: \(more)")
    }
  }

  /// Loads the chart at `path` and prints what `text` makes of it.
  private static func withChart(
    _ path: String, _ text: (Flowchart<ChartValue>) -> String
  ) -> Outcome {
    var outcome = Outcome()
    do {
      outcome.output = text(try load(path))
    } catch {
      report(error, to: &outcome)
      outcome.exitCode = .failure
    }
    return outcome
  }

  // MARK: - Commands

  /// `flowchart validate <files> ...`.
  static func validate(_ paths: [String]) -> Outcome {
    var outcome = Outcome()
    var invalid = 0
    for path in paths {
      do {
        let chart = try load(path)
        outcome.say("\(path): valid, \(counted(chart.states.count, "state"))")
      } catch {
        report(error, to: &outcome)
        invalid += 1
      }
    }
    if invalid > 0 {
      let problems = invalid == 1 ? "has problems" : "have problems"
      outcome.complain("Error: \(invalid) of \(counted(paths.count, "file")) \(problems).")
      outcome.exitCode = .failure
    }
    return outcome
  }

  /// `flowchart convert <file> --to <syntax>`: the file as read, written in `syntax`, once
  /// it compiles (with stand-ins, as `validate` compiles it): a file with problems is not
  /// converted, and its problems are reported as `validate` reports them.
  static func convert(_ path: String, to syntax: ChartSyntax) -> Outcome {
    var outcome = Outcome()
    do {
      let file = try ChartFile.read(contentsOf: URL(fileURLWithPath: path))
      var handlers = HandlerRegistry<ChartValue>()
      handlers.fallback = { standIn(for: $0) }
      _ = try file.flowchart(handlers: handlers)
      outcome.output = try file.checkedText(in: syntax)
      if !outcome.output.hasSuffix("\n") { outcome.output += "\n" }
    } catch let error as ChartWritingError {
      outcome.complain("\(path): error: \(error)")
      outcome.exitCode = .failure
    } catch let error as DefinitionError {
      report(error, to: &outcome)
      outcome.exitCode = .failure
    } catch {
      outcome.complain("\(path): error: \(error)")
      outcome.exitCode = .failure
    }
    return outcome
  }
}

/// `1 state`, `2 states`.
func counted(_ count: Int, _ noun: String) -> String {
  count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
}

/// The error a stand-in throws for a condition or multiple condition whose code the tool
/// does not have: a clause of the tool's own, so the run error tells it as its cause
/// (`The run stopped at condition 'Approved?' (…): the command line has no code for …`).
struct CodeNeeded: SelfExplainingError {
  /// The handler the file names, and the state that needs it.
  var request: HandlerRequest

  var description: String {
    let example = request.kind == .condition ? "yes" : "KEY"
    return
      "the command line has no code for '\(request.name)', so force the decision of \(request.kind) '\(request.stateName)' with --decide '\(request.stateName)=\(example)'"
  }
}

/// The decisions `--decide` forces on states that the run's chart does not hold itself, but
/// the charts its subflows and maps run do: each such state's stand-in takes the next
/// decision forced on its name, one per visit, in the order the visits come.
final class InnerDecisions: Sendable {
  private struct State {
    /// The conditions and multiple conditions bound to stand-ins, by state name.
    var standIns: [String: HandlerRequest] = [:]
    /// The decisions not taken yet, by state name.
    var queues: [String: [String]] = [:]
  }

  private let state = Lock(State())

  /// Notes a state whose code is a stand-in, so that `--decide` can name it.
  func record(_ request: HandlerRequest) {
    guard request.kind == .condition || request.kind == .multipleCondition else { return }
    state.withLock { $0.standIns[request.stateName] = $0.standIns[request.stateName] ?? request }
  }

  /// The condition or multiple condition named `name` that a stand-in decides, if any.
  func standIn(named name: String) -> HandlerRequest? {
    state.withLock { $0.standIns[name] }
  }

  /// Queues `decision` for the next visit of the state named `name`.
  func force(_ decision: String, on name: String) {
    state.withLock { $0.queues[name, default: []].append(decision) }
  }

  /// The decision forced on the state named `name` for this visit, if any is left.
  func next(for name: String) -> String? {
    state.withLock { locked in
      guard var queue = locked.queues[name], !queue.isEmpty else { return nil }
      let decision = queue.removeFirst()
      locked.queues[name] = queue
      return decision
    }
  }
}
