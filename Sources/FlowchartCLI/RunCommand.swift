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
    do {
      return try JSONDecoder().decode(DecodedValue.self, from: Data(text.utf8)).value
    } catch {
      var reason = "it is not valid JSON"
      if case DecodingError.dataCorrupted(let context) = error,
        let underlying = context.underlyingError
      {
        reason += " (\((underlying as NSError).userInfo[NSDebugDescriptionErrorKey] ?? underlying))"
      }
      throw UsageError(
        message: "The value '\(text)' is invalid for '--context <json>': \(reason).",
        help: "--context <json>  The run's context, a JSON value. (default: {})",
        command: "run")
    }
  }

  /// A `--send` value, `State=json`, split at its first `=`.
  static func parseInput(_ text: String) throws(UsageError) -> (name: String, value: ChartValue) {
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
      throw UsageError(
        message:
          "The value '\(text)' is invalid for '--send <state=json>': write the waiting state's name, '=', then a JSON value, as in --send 'Approval={\"by\": \"Ann\"}'.",
        command: "run")
    }
    let json = String(text[text.index(after: equals)...])
    do throws(UsageError) {
      return (String(text[..<equals]), try parseContext(json))
    } catch {
      throw UsageError(
        message:
          "The value '\(text)' is invalid for '--send <state=json>': '\(json)' is not a JSON value.",
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
      let decision: Decision?
      let allowed: String
      switch info.kind.code {
      case .multipleCondition:
        (decision, allowed) = (.key(text), "a key")
      case .condition:
        (decision, allowed) = (text == "yes" ? .yes : text == "no" ? .no : nil, "yes or no")
      case .action:
        (decision, allowed) = (text == "done" ? .done : nil, "done")
      case .dispatch, .subflow, .map, .waiting:
        (decision, allowed) = (nil, "nothing")
      }
      guard let decision else {
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

/// A JSON value decoded as a ``ChartValue``: `true` and `false` stay Booleans, numbers
/// become `Double`s.
private struct DecodedValue: Decodable {
  var value: ChartValue

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      value = .null
    } else if let bool = try? container.decode(Bool.self) {
      value = .bool(bool)
    } else if let number = try? container.decode(Double.self) {
      value = .number(number)
    } else if let string = try? container.decode(String.self) {
      value = .string(string)
    } else if let array = try? container.decode([DecodedValue].self) {
      value = .array(array.map(\.value))
    } else {
      value = .object(try container.decode([String: DecodedValue].self).mapValues(\.value))
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
