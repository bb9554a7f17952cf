import Flowchart
import FlowchartFiles
import Foundation

extension Tool {
  /// `flowchart run <file> --context <json> --decide <state=decision> ... --log`.
  static func runChart(
    _ path: String, context contextText: String, decisions: [String], inputs: [String] = [],
    log: Bool
  ) async -> Outcome {
    var outcome = Outcome()
    let context: ChartValue
    let forcedNames: [(name: String, decision: String)]
    let sent: [(name: String, value: ChartValue)]
    do throws(UsageError) {
      context = try parseContext(contextText)
      forcedNames = try decisions.map(parseDecision)
      sent = try inputs.map(parseInput)
    } catch {
      outcome.errorOutput = Help.text(of: error, commands: commands)
      outcome.exitCode = .usageError
      return outcome
    }
    let chart: Flowchart<ChartValue>
    let inner = InnerDecisions()
    do {
      chart = try load(path, decisions: inner)
    } catch {
      report(error, to: &outcome)
      outcome.exitCode = .failure
      return outcome
    }
    let steps = StepLog()
    let observer: (@Sendable (StateID, ObservedStep) -> Void)? =
      log ? { @Sendable state, step in steps.append(state, step) } : nil
    let scripted: Flowchart<ChartValue>
    do throws(UsageError) {
      let forcing = try forced(forcedNames, in: chart, inner: inner)
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
    let result: Result<RunResult<ChartValue>, RunError>
    if sent.isEmpty {
      do throws(RunError) {
        result = .success(try await scripted.run(with: context))
      } catch {
        result = .failure(error)
      }
    } else {
      // A live run keeps each value until its state waits for it.
      let handle = scripted.start(with: context)
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
    }
    if log {
      // A dispatch reports its exit once per branch folded back: log it after the last.
      var folds: [StateID: Int] = [:]
      for (state, step) in steps.steps {
        let branches = chart[state].exits.count { $0.label.branch != nil }
        if branches > 1 {
          folds[state, default: 0] += 1
          guard folds[state]! % branches == 0 else { continue }
        }
        if let line = logLine(state, step, in: chart) { outcome.say(line) }
      }
    }
    switch result {
    case .success(let result):
      outcome.say("Final state: \(result.finalStateName)")
      outcome.say("Decision: \(result.decision)")
      if let value = result.outcome(as: String.self) { outcome.say("Outcome: \(value)") }
      outcome.say("Path: \(result.pathNames.joined(separator: " -> "))")
      outcome.say("Context: \(result.context.jsonText)")
    case .failure(let error):
      outcome.complain("Error: \(error)")
      outcome.exitCode = .failure
    }
    return outcome
  }

  /// The context given as JSON text.
  static func parseContext(_ text: String) throws(UsageError) -> ChartValue {
    do throws(ChartValue.JSONError) {
      return try ChartValue(jsonText: text)
    } catch {
      throw UsageError(
        message:
          "The value '\(quotedArgument(text))' is invalid for '--context <json>': it is not valid JSON: \(error)",
        help: "--context <json>  The run's context, a JSON value. (default: {})",
        command: "run")
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
    do throws(ChartValue.JSONError) {
      return (String(text[..<equals]), try ChartValue(jsonText: json))
    } catch {
      throw UsageError(
        message:
          "The value '\(quotedArgument(text))' is invalid for '--send <state=json>': '\(quotedArgument(json))' is not a JSON value: \(error)",
        command: "run")
    }
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
              "The value '\(name)=\(text)' is invalid for '--decide <state=decision>': condition '\(name)' (\(request.location)) can be forced to decide yes or no.",
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
      let decision: Decision
      switch (info.kind, text) {
      case (.multipleCondition, _): decision = .key(text)
      case (.condition, "yes"): decision = .yes
      case (.condition, "no"): decision = .no
      case (.action, "done"): decision = .done
      default:
        let allowed =
          info.kind == .condition ? "yes or no" : info.kind == .action ? "done" : "nothing"
        throw UsageError(
          message:
            "The value '\(name)=\(text)' is invalid for '--decide <state=decision>': \(info.kind) '\(name)' (\(info.location)) can be forced to decide \(allowed).",
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

/// The steps a run reports to `--log`, in the order they happen.
private final class StepLog: Sendable {
  private let storage = Lock<[(StateID, ObservedStep)]>([])

  /// Records that `state` did `step`.
  func append(_ state: StateID, _ step: ObservedStep) {
    storage.withLock { $0.append((state, step)) }
  }

  /// The steps so far.
  var steps: [(StateID, ObservedStep)] { storage.withLock { $0 } }
}
