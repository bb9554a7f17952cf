// `--fail`: forced failures, one per attempt of a state's code, for `run` and `handle`. Built
// on the core's scripted failures (`Graph/Flowchart+ScriptedFailures.swift`): a failing
// attempt throws as the state's code would, and its retry and catch routes take it.

import Flowchart
import FlowchartFiles

/// How `--fail` makes one attempt of a state's code go.
enum ForcedAttempt: Sendable, Equatable {
  /// The attempt fails: the state's retry takes it, then the catch route at `catchRoute`
  /// (from 0; the first when `nil`), or the run fails.
  case error(catchRoute: Int?)
  /// The attempt times out at once: the state's retry and catch routes take it as a
  /// timeout.
  case timeout
  /// The attempt runs normally: an action's code runs, a condition takes its next
  /// `--decide` value.
  case normal

  /// The value after `=` that names it: `error`, `catch2`, `timeout`, `none`.
  var text: String {
    switch self {
    case .error(let route): route.map { "catch\($0 + 1)" } ?? "error"
    case .timeout: "timeout"
    case .normal: "none"
    }
  }
}

extension Tool {
  /// The help of `--fail` (`run` and `handle`).
  static let failHelp =
    "Make one attempt of a state's code fail: 'State' or 'State=error' (its retry, then its first catch route that takes it, or the run fails), 'State=catchN' (the error catch route N, from 1, takes), 'State=timeout' (it times out at once; the state needs a timeout), 'State=none' (this attempt runs normally). Repeat for later attempts: each attempt of the state (a retry too) takes the next value, in order; the attempts after the last run normally (an action's code runs, a condition takes its next --decide value). For actions, conditions and multiple conditions of the chart itself. `flowchart routes --json` gives each route's values."

  /// Reads a `--fail` value: `State` or `State=error|catchN|timeout|none` (split at the
  /// last '=' when what follows is one of those; otherwise the whole value is the name).
  static func parseFailure(
    _ text: String, command: String
  ) throws(UsageError) -> (name: String, attempt: ForcedAttempt, text: String) {
    var name = text
    var attempt = ForcedAttempt.error(catchRoute: nil)
    if let equals = text.lastIndex(of: "=") {
      let how = String(text[text.index(after: equals)...])
      let parsed: ForcedAttempt?
      switch how {
      case "error": parsed = .error(catchRoute: nil)
      case "timeout": parsed = .timeout
      case "none": parsed = .normal
      default:
        if how.hasPrefix("catch"), let route = Int(how.dropFirst(5)) {
          guard route >= 1 else {
            throw UsageError(
              message:
                "The value '\(quotedArgument(text))' is invalid for '--fail <state[=how]>': catch routes are counted from 1, as in --fail '\(text[..<equals])=catch1'.",
              command: command)
          }
          parsed = .error(catchRoute: route - 1)
        } else {
          parsed = nil
        }
      }
      if let parsed {
        name = String(text[..<equals])
        attempt = parsed
      }
    }
    guard !name.isEmpty else {
      throw UsageError(
        message:
          "The value '\(quotedArgument(text))' is invalid for '--fail <state[=how]>': write the state's name, then optionally '=' and error, catchN, timeout or none, as in --fail 'Charge card' or --fail 'Charge card=timeout'.",
        command: command)
    }
    return (name, attempt, text)
  }

  /// Adds the failures of `--fail` to `forced`, the decisions of `--decide` by state: each
  /// state named takes its values one per attempt of its code, in order; an attempt whose
  /// value is `none`, and every attempt after the last value, runs normally (an action's
  /// code runs; a condition or multiple condition takes its next `--decide` value, or its
  /// one value at every visit when it has one).
  static func addFailures(
    _ failures: [(name: String, attempt: ForcedAttempt, text: String)],
    to forced: inout [StateID: ForcedDecision],
    in chart: Flowchart<ChartValue>, command: String
  ) throws(UsageError) {
    var order: [StateID] = []
    var attempts: [StateID: [ForcedAttempt]] = [:]
    for (name, attempt, text) in failures {
      let state: StateID
      do throws(ScriptProblem) {
        state = try chart.scriptedState(named: name)
      } catch {
        throw UsageError(
          message:
            "The value '\(quotedArgument(text))' is invalid for '--fail <state[=how]>': \(error.message)",
          command: command)
      }
      let info = chart[state]
      let value = "'\(quotedArgument(text))'"
      switch info.kind.code {
      case .action, .condition, .multipleCondition:
        break
      case .dispatch, .subflow, .map, .waiting, .delay:
        throw UsageError(
          message:
            "The value \(value) is invalid for '--fail <state[=how]>': \(info.kind) '\(name)' (\(info.location)) has no code of its own to fail. Fail an action, a condition or a multiple condition.",
          command: command)
      }
      let modifiers = chart.scriptableModifiers(of: state)
      switch attempt {
      case .timeout where modifiers?.timeout == nil:
        throw UsageError(
          message:
            "The value \(value) is invalid for '--fail <state[=how]>': \(info.kind) '\(name)' (\(info.location)) has no timeout to run out. Give it a \"timeout\" in the chart, or fail it with --fail '\(quotedArgument(name))'.",
          command: command)
      case .error(let route?) where route >= (modifiers?.catchTargets.count ?? 0):
        let count = modifiers?.catchTargets.count ?? 0
        throw UsageError(
          message:
            "The value \(value) is invalid for '--fail <state[=how]>': \(info.kind) '\(name)' (\(info.location)) has \(count == 1 ? "1 catch route" : "\(count) catch routes"). Name one of them (catch1\(count > 1 ? " to catch\(count)" : "")), or write --fail '\(quotedArgument(name))'.",
          command: command)
      case .error, .timeout, .normal:
        break
      }
      if attempts[state] == nil { order.append(state) }
      attempts[state, default: []].append(attempt)
    }
    for state in order {
      let info = chart[state]
      let isAction = info.kind.code == .action
      let decisions = forced[state]?.choices ?? []
      var next = 0
      var choices: [ForcedChoice] = []
      for attempt in attempts[state] ?? [] {
        switch attempt {
        case .error(let route): choices.append(.failure(.error(catchRoute: route)))
        case .timeout: choices.append(.failure(.timeout))
        case .normal:
          if isAction {
            choices.append(.decision(.done))
          } else if decisions.count == 1 {
            choices.append(decisions[0])
          } else if next < decisions.count {
            choices.append(decisions[next])
            next += 1
          } else {
            throw UsageError(
              message:
                "The value '\(quotedArgument(info.name))=none' is invalid for '--fail <state[=how]>': \(info.kind) '\(info.name)' (\(info.location)) decides in the attempts that do not fail, and has no --decide value left for this one. Add a --decide '\(quotedArgument(info.name))=…' for each of them, in order.",
              command: command)
          }
        }
      }
      var decision = ForcedDecision(choices: choices, runsCode: isAction)
      if isAction {
        // The attempts after the failures run the action's code, and go on.
        decision.choices.append(.decision(.done))
        decision.repeatsLastChoice = true
      } else if decisions.count == 1 {
        decision.choices.append(decisions[0])
        decision.repeatsLastChoice = true
      } else {
        decision.choices += decisions[next...]
      }
      forced[state] = decision
    }
  }
}
