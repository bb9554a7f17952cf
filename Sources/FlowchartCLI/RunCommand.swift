import Flowchart
import FlowchartFiles
import Foundation

extension Tool {
  /// The step limit of `flowchart run` when `--step-limit` is not given: far more states than
  /// a chart run from the command line enters, and reached in well under a second by a loop
  /// whose exit is never taken.
  static let defaultStepLimit = 100_000

  /// `flowchart run <file> --context <json> --decide <state=decision> ... --log`.
  ///
  /// With `output`, the lines of `--log` go to it as the run goes, each as it happens;
  /// without, they start ``Outcome/output``.
  static func runChart(
    _ path: String, context contextText: String, decisions: [String], failures: [String] = [],
    inputs: [String] = [], stepLimit stepLimitText: String? = nil, log: Bool,
    files: RunFiles = RunFiles(),
    store: String? = nil, output: OutputSink? = nil
  ) async -> Outcome {
    var outcome = Outcome()
    let context: ChartValue
    let forcedNames: [(name: String, decision: String)]
    let forcedFailures: [(name: String, attempt: ForcedAttempt, text: String)]
    let sent: [(name: String, value: ChartValue)]
    let stepLimit: Int
    do throws(UsageError) {
      context = try parseContext(contextText)
      forcedNames = try decisions.map(parseDecision)
      forcedFailures = try failures.map { text throws(UsageError) in
        try parseFailure(text, command: "run")
      }
      sent = try inputs.map(parseInput)
      stepLimit = try stepLimitText.map(parseStepLimit) ?? defaultStepLimit
    } catch {
      outcome.errorOutput = Help.text(of: error, commands: commands)
      outcome.exitCode = .usageError
      return outcome
    }
    let inner = InnerDecisions()
    guard let chart = load(path, decisions: inner, reportingTo: &outcome) else { return outcome }
    return await run(
      chart, inner: inner, context: context, decisions: forcedNames, failures: forcedFailures,
      inputs: sent, stepLimit: stepLimit, log: log, files: files, store: store.map { (path, $0) },
      output: output)
  }

  /// Runs `chart`, loaded, as `flowchart run` does: forces `decisions`, sends `inputs`, stops
  /// after `stepLimit` states, and with `log` writes a line per step to `output` as it
  /// happens (or to the outcome's output, before the result, without one).
  static func run(
    _ chart: Flowchart<ChartValue>, inner: InnerDecisions, context: ChartValue,
    decisions forcedNames: [(name: String, decision: String)],
    failures: [(name: String, attempt: ForcedAttempt, text: String)] = [],
    inputs sent: [(name: String, value: ChartValue)], stepLimit: Int, log: Bool,
    files: RunFiles = RunFiles(), store: (chart: String, directory: String)? = nil,
    output: OutputSink?
  ) async -> Outcome {
    var outcome = Outcome()
    let logOptions: RunLog.Options
    do {
      logOptions = try files.logOptions()
    } catch {
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
      return outcome
    }
    let steps = StepLog(chart, output: output)
    let observer: (@Sendable (StateID, ObservedStep) -> Void)? =
      log ? { @Sendable state, step in steps.append(state, step) } : nil
    let scripted: Flowchart<ChartValue>
    do throws(UsageError) {
      var forcing = try forced(forcedNames, in: chart, inner: inner)
      try addFailures(failures, to: &forcing, in: chart, command: "run")
      do throws(ScriptProblem) {
        scripted = try chart.scripted(forcing: forcing, observer: observer)
      } catch {
        throw UsageError(message: error.message, command: "run")
      }
    } catch {
      outcome.errorOutput = Help.text(of: error, commands: commands)
      outcome.exitCode = .usageError
      return outcome
    }
    if let store {
      return await runStored(
        scripted, path: store.chart, context: context, inputs: sent, stepLimit: stepLimit,
        store: store.directory, steps: steps,
        logging: RunLogging(
          files: files,
          file: (logOptions.sink as? RunLogFile).map {
            StoredRunLogFile($0, path: files.logFile ?? "")
          }, chart: chart))
    }
    let result: Result<RunResult<ChartValue>, RunError>
    var runLog: RunLog?
    if sent.isEmpty && !files.needsLog {
      do throws(RunError) {
        result = .success(try await scripted.run(with: context, stepLimit: stepLimit))
      } catch {
        result = .failure(error)
      }
    } else {
      // A live run keeps each value until its state waits for it.
      let handle =
        files.needsLog
        ? scripted.start(with: context, stepLimit: stepLimit, log: logOptions)
        : scripted.start(with: context, stepLimit: stepLimit)
      for (name, value) in sent {
        do throws(InputError) {
          try handle.send(value, to: name)
        } catch {
          handle.cancel()
          outcome.errorOutput = Help.text(
            of: UsageError(
              message: "The value '\(name)=…' is invalid for '--send <state=json>': \(error)",
              command: "run"), commands: commands)
          outcome.exitCode = .usageError
          return outcome
        }
      }
      do throws(RunError) {
        result = .success(try await handle.result)
      } catch {
        result = .failure(error)
      }
      if files.needsLog { runLog = handle.log }
    }
    outcome.output = steps.unwritten
    if let runLog, let report = files.report {
      // The report draws the chart as loaded, not the scripted copy (the same states).
      do {
        try writeReport(of: runLog, chart: chart, to: report)
      } catch {
        outcome.complain("Error: \(error)")
        outcome.exitCode = .failure
      }
    }
    describe(result, stepLimit: stepLimit, into: &outcome)
    return outcome
  }

  /// What `flowchart run` says of a failed run: the run error, except that a waiting state
  /// of the chart, which a run without `--send` cannot feed, gets the tool's advice, not the
  /// library's (`chart.start(with:)` and `handle.send(_:to:)` are nothing a command line
  /// can call).
  static func failureMessage(_ error: RunError) -> String {
    let message = error.description
    guard let wait = error.underlyingError as? WaitOutsideLiveRun, !wait.isNested,
      wait.received == nil
    else { return message }
    let name = wait.stateName
    return message.replacingOccurrences(
      of: wait.description,
      with:
        "it waits for a value sent from outside: give it one with --send '\(name)=<json>', as in --send '\(name)=true'"
    )
  }

  /// What `flowchart run` says when the run reached its step limit: the core's reason (the
  /// limit, and the state the run was about to enter), the last states of the path (the
  /// whole of it would be hundreds of names), and how to raise the limit.
  static func stepLimitMessage(_ error: RunError, limit: Int) -> String {
    let shown = 6
    let names = error.pathNames.suffix(shown).map { "'\($0)'" }
    let elided = error.pathNames.count > shown ? "… → " : ""
    // The description is the reason, then the whole path.
    let description = error.description
    let reason =
      description.range(of: "\nPath: ", options: .backwards).map {
        String(description[..<$0.lowerBound])
      } ?? description
    return """
      \(reason)
      Last states: \(elided)\(names.joined(separator: " → "))
      Raise the limit with --step-limit <n>, above \(limit == defaultStepLimit ? "its default of " : "")\(limit).
      """
  }

  /// A `--step-limit` value: a whole number of states from 1.
  static func parseStepLimit(_ text: String) throws(UsageError) -> Int {
    let help = "--step-limit <n>  \(stepLimitHelp) (default: \(defaultStepLimit))"
    let reason: String
    if let limit = Int(text) {
      guard limit < 1 else { return limit }
      reason =
        "the limit is the most states the run may enter, so it is at least 1; give a larger number, as in --step-limit \(defaultStepLimit * 10)."
    } else if case let digits = text.first == "-" || text.first == "+"
      ? text.dropFirst() : text[...],
      !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber })
    {
      // Digits Int cannot hold.
      reason =
        text.hasPrefix("-")
        ? "the limit is the most states the run may enter, so it is at least 1; give a larger number, as in --step-limit \(defaultStepLimit * 10)."
        : "it is larger than the largest limit, \(Int.max); give a number from 1 to \(Int.max)."
    } else {
      reason =
        "it is not a whole number; give the most states the run may enter, as in --step-limit \(defaultStepLimit * 10)."
    }
    throw UsageError(
      message: "The value '\(text)' is invalid for '--step-limit <n>': \(reason)", help: help,
      command: "run")
  }

  /// The help line of `--step-limit`, without its default.
  static let stepLimitHelp =
    "The most states the run may enter before it stops with an error, so that a loop whose exit is never taken ends. A whole number from 1."

  /// The context given as JSON text.
  static func parseContext(_ text: String) throws(UsageError) -> ChartValue {
    try parseJSON(
      text, in: text, for: "--context <json>", notJSON: "it is not valid JSON",
      help: "--context <json>  The run's context, a JSON value. (default: {})")
  }

  /// `json`, part or all of the value `text` given to `option`, read as a `ChartValue`; a
  /// usage error saying `notJSON`, then why, when it is not JSON.
  static func parseJSON(
    _ json: String, in text: String, for option: String, notJSON: String, help: String? = nil
  ) throws(UsageError) -> ChartValue {
    do throws(ChartValue.JSONError) {
      return try ChartValue(jsonText: json)
    } catch {
      throw UsageError(
        message:
          "The value '\(quotedArgument(text))' is invalid for '\(option)': \(notJSON): \(error)",
        help: help, command: "run")
    }
  }

  /// `text` as a message quotes it: its first 60 characters, then `…`.
  static func quotedArgument(_ text: String) -> String {
    text.count <= 60 ? text : text.prefix(60) + "…"
  }

  /// A `--send` value, `State=json`, split at its first `=`.
  static func parseInput(_ text: String) throws(UsageError) -> (name: String, value: ChartValue) {
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
      throw UsageError(
        message:
          "The value '\(quotedArgument(text))' is invalid for '--send <state=json>': write the waiting state's name, '=', then a JSON value, as in --send 'Approval={\"by\": \"Ann\"}'.",
        command: "run")
    }
    let json = String(text[text.index(after: equals)...])
    let value = try parseJSON(
      json, in: text, for: "--send <state=json>",
      notJSON: "'\(quotedArgument(json))' is not a JSON value")
    return (String(text[..<equals]), value)
  }

  /// A `--decide` value, `State=yes`, split at its last `=`.
  static func parseDecision(_ text: String) throws(UsageError) -> (name: String, decision: String) {
    guard let equals = text.lastIndex(of: "="), equals != text.startIndex else {
      throw UsageError(
        message:
          "The value '\(text)' is invalid for '--decide <state=decision>': write the state's name, '=', then yes, no or a key, as in --decide 'Injured?=yes'.",
        command: "run")
    }
    return (String(text[..<equals]), String(text[text.index(after: equals)...]))
  }

  /// The decisions to force, by state: `yes` and `no` for a condition, a key for a multiple
  /// condition, `done` for an action; a state named several times takes one decision per
  /// visit, in order. A name that no state of `chart` has, but a condition or multiple
  /// condition bound to code in a chart that one of its subflows or maps runs does, goes to
  /// `inner`, whose stand-ins take it.
  static func forced(
    _ decisions: [(name: String, decision: String)], in chart: Flowchart<ChartValue>,
    inner: InnerDecisions? = nil
  ) throws(UsageError) -> [StateID: ForcedDecision] {
    var forced: [StateID: ForcedDecision] = [:]
    for (name, text) in decisions {
      if let inner, let request = inner.standIn(named: name),
        !chart.states.contains(where: { chart[$0].name == name })
      {
        guard request.kind == .multipleCondition || text == "yes" || text == "no" else {
          throw UsageError(
            message:
              "The value '\(name)=\(text)' is invalid for '--decide <state=decision>': condition '\(name)' (\(request.location)) can be forced to decide yes or no\(Suggestions.hint(for: text, among: ["yes", "no"], quote: { "'\($0)'" })).",
            command: "run")
        }
        inner.force(text, on: name)
        continue
      }
      let state: StateID
      do throws(ScriptProblem) {
        state = try chart.scriptedState(named: name)
      } catch {
        throw UsageError(message: error.message, command: "run")
      }
      let info = chart[state]
      let decision: Decision?
      let allowed: String
      var candidates: [String] = []
      switch info.kind.code {
      case .multipleCondition:
        let keys = info.exits.compactMap(\.label.key)
        if info.exits.contains(where: { $0.label == .default }) || keys.isEmpty
          || keys.contains(text)
        {
          (decision, allowed) = (.key(text), "a key")
        } else {
          let listed = keys.map { "'\($0)'" }.joined(separator: ", ")
          (decision, allowed, candidates) = (nil, "a key of its exits (\(listed))", keys)
        }
      case .condition:
        (decision, allowed) = (text == "yes" ? .yes : text == "no" ? .no : nil, "yes or no")
        candidates = ["yes", "no"]
      case .action:
        (decision, allowed) = (text == "done" ? .done : nil, "done")
        candidates = ["done"]
      case .dispatch, .subflow, .map, .waiting, .delay:
        (decision, allowed) = (nil, "nothing")
      }
      guard let decision else {
        throw UsageError(
          message:
            "The value '\(name)=\(text)' is invalid for '--decide <state=decision>': \(info.kind) '\(name)' (\(info.location)) can be forced to decide \(allowed)\(Suggestions.hint(for: text, among: candidates, quote: { "'\($0)'" })).",
          command: "run")
      }
      forced[state, default: ForcedDecision([])].choices.append(.decision(decision))
    }
    return forced
  }

  /// One line of `--log` for what `state` did, or `nil` for its entry.
  static func logLine(
    _ state: StateID, _ step: ObservedStep, in chart: Flowchart<ChartValue>
  ) -> String? {
    let info = chart[state]
    let name = "\(info.name) (\(info.kind.letter))"
    switch step {
    case .entered:
      return nil
    case .tookExit(let position):
      let exit = info.exits[position]
      let label = exit.label == .next ? "" : "\(exit.label) "
      return "\(name) \(label)-> \(chart[exit.target].name)"
    case .ended(let decision):
      return "\(name) ended: \(decision)"
    }
  }
}

/// Writes the lines of `--log` as the run reports its steps: each to the output sink at once
/// when there is one, or kept for the outcome when there is not.
final class StepLog: Sendable {
  private struct State {
    /// How many branches of each dispatch have folded back, modulo its branch count.
    var folds: [StateID: Int] = [:]
    /// The lines written when there is no sink.
    var unwritten = ""
  }

  private let chart: Flowchart<ChartValue>
  private let output: OutputSink?
  private let state = Lock(State())

  init(_ chart: Flowchart<ChartValue>, output: OutputSink?) {
    self.chart = chart
    self.output = output
  }

  /// Writes the line of `state`'s `step`, if it has one. A dispatch reports its exit once
  /// per branch folded back: its line comes after the last. Under the lock, so that lines
  /// of concurrent branches come whole and in the order they were reported.
  func append(_ state: StateID, _ step: ObservedStep) {
    self.state.withLock { locked in
      if case .tookExit = step {
        let branches = chart[state].exits.count { $0.label.branch != nil }
        if branches > 1 {
          let folded = (locked.folds[state] ?? 0) + 1
          locked.folds[state] = folded % branches
          guard folded == branches else { return }
        }
      }
      guard let line = Tool.logLine(state, step, in: chart) else { return }
      if let output {
        output.write(line + "\n")
      } else {
        locked.unwritten += line + "\n"
      }
    }
  }

  /// The lines written when there is no sink.
  var unwritten: String { state.withLock { $0.unwritten } }
}
