import Flowchart
import FlowchartFiles
import FlowchartStepFunctions
import Foundation

extension Tool {
  /// The `export` command: a chart as an Amazon States Language definition (see the
  /// FlowchartStepFunctions module).
  static let exportCommand = CommandSpec(
    name: "export", abstract: "Write a chart as an AWS Step Functions definition.",
    discussion: """
      Writes the chart as an Amazon States Language definition (JSONPath), its keys
      sorted: each state's code becomes a Task that sends the state's name and the
      execution's document to its resource, and takes back the new document and the
      exit it took (see `flowchart handle`). A state ASL cannot express as Flowchart
      runs it (a join policy other than all, branches that wait for branches, ...) is
      reported on standard error with its location, and nothing is written.
      """,
    arguments: [
      ArgumentSpec(name: "file", help: "The chart file, JSON (.json) or XML (.xml).")
    ],
    options: [
      OptionSpec(name: "--asl", help: "Write the Amazon States Language.", isRequired: true),
      OptionSpec(
        name: "--resources", valueName: "file",
        help:
          "A JSON object: \"default\" and state names, each a function ARN ({name} is the state's ASL name) or {\"queue\": \"url\"}. Without it, every task sends its work to a queue named flowchart."
      ),
    ])

  /// The `handle` command: the task handler an exported definition's tasks call.
  static let handleCommand = CommandSpec(
    name: "handle", abstract: "Run one state of a chart on a task's payload.",
    discussion: """
      Reads a task's payload on standard input, as an exported definition sends it
      ({"state": ..., "stateID": ..., "step": ..., "context": ...}), runs that state
      of the chart (or a dispatch's merge, or a catch route's handler) and writes
      {"context": ..., "exit": ...} to standard output. When the state's code fails,
      writes {"error": ..., "cause": ...} and exits with 1: answer the task with
      SendTaskFailure. A condition bound to code by name needs that code: run it
      from Swift with StepFunctionsHandler, or force its decision with --decide, as
      `run --decide` does (one value per visit of the state in this process, so a
      worker that answers one task per process gives each visit's decision, in the
      order the execution visits the state: .ci/stepfunctions.py counts the visits).

      --fail makes the task's attempt fail as run --fail does, and answers as the
      deployed handler would: {"error": "Flowchart.Retry"} when the state's retry takes
      the failure and the payload's retryCount leaves attempts, {"exit": "catchN"} when
      a catch route takes it, else the error. A timeout is Step Functions' own: a
      worker that times out never answers, and after the state's TimeoutSeconds the
      execution fails the task with States.Timeout, which the definition's Retry and
      Catch take. --fail 'State=timeout' writes {"error": "States.Timeout"} and exits
      with 1 to say so: leave that task unanswered (SendTaskFailure cannot carry an
      error name that begins with "States.": moto refuses it, as the ASL spec says).
      """,
    arguments: [
      ArgumentSpec(name: "file", help: "The chart file, JSON (.json) or XML (.xml).")
    ],
    options: [
      OptionSpec(
        name: "--payload", valueName: "json",
        help: "The payload, instead of reading it from standard input."),
      OptionSpec(
        name: "--decide", valueName: "state=decision",
        help:
          "Force a state's decision, as run --decide does: yes or no for a condition, a key for a multiple condition. Split at the last '='. Repeat for more states, or for one state's later visits.",
        isRepeatable: true),
      OptionSpec(
        name: "--fail", valueName: "state[=how]",
        help:
          "Make the task's attempt of a state fail, as run --fail does: 'State' or 'State=error', 'State=catchN', 'State=timeout' (writes States.Timeout: leave the task unanswered, and its TimeoutSeconds runs out), 'State=none'. One task is one attempt: a worker that answers one task per process gives each attempt's value, in order.",
        isRepeatable: true),
    ])

  /// `flowchart export <file> --asl [--resources <file>]`.
  static func exportChart(_ path: String, resourcesPath: String?) -> Outcome {
    var outcome = Outcome()
    guard let chart = load(path, reportingTo: &outcome) else { return outcome }
    var resources = StepFunctionsResources.localQueue
    if let resourcesPath {
      do {
        let text = try String(contentsOfFile: resourcesPath, encoding: .utf8)
        resources = try StepFunctionsResources(table: try ChartValue(jsonText: text))
      } catch {
        outcome.complain("\(resourcesPath): error: \(error)")
        outcome.exitCode = .failure
        return outcome
      }
    }
    do throws(StepFunctionsExportError) {
      outcome.output = try chart.stateMachineDefinition(resources: resources).text
    } catch {
      for problem in error.problems {
        outcome.complain("\(problem.location): error: \(problem.message)")
      }
      outcome.exitCode = .failure
    }
    return outcome
  }

  /// `flowchart handle <file> [--payload <json>] [--decide <state=decision> ...]
  /// [--fail <state[=how]> ...]`.
  static func handleTask(
    _ path: String, payload payloadText: String?, decisions: [String] = [],
    failures: [String] = []
  ) async -> Outcome {
    var outcome = Outcome()
    let forcedNames: [(name: String, decision: String)]
    let forcedFailures: [(name: String, attempt: ForcedAttempt, text: String)]
    do throws(UsageError) {
      forcedNames = try decisions.map(parseDecision)
      forcedFailures = try failures.map { text throws(UsageError) in
        try parseFailure(text, command: "handle")
      }
    } catch {
      return usageFailure(error)
    }
    let inner = InnerDecisions()
    guard let loaded = load(path, decisions: inner, reportingTo: &outcome) else { return outcome }
    let chart: Flowchart<ChartValue>
    do throws(UsageError) {
      var forcing = try forced(forcedNames, in: loaded, inner: inner)
      try addFailures(forcedFailures, to: &forcing, in: loaded, command: "handle")
      do throws(ScriptProblem) {
        chart = forcing.isEmpty ? loaded : try loaded.scripted(forcing: forcing)
      } catch {
        throw UsageError(message: error.message, command: "handle")
      }
    } catch {
      return usageFailure(error)
    }
    let text =
      payloadText ?? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    let payload: ChartValue
    do throws(ChartValue.JSONError) {
      payload = try ChartValue(jsonText: text)
    } catch {
      outcome.output =
        ChartValue.object([
          "error": "Flowchart.BadPayload", "cause": .string("The payload is not JSON: \(error)"),
        ]).jsonText + "\n"
      outcome.exitCode = .failure
      return outcome
    }
    if let timeout = forcedTimeout(of: payload, in: loaded, failures: forcedFailures) {
      // What Step Functions reports when the task outlives the state's TimeoutSeconds.
      outcome.output =
        ChartValue.object(["error": "States.Timeout", "cause": .string(timeout)]).jsonText + "\n"
      outcome.exitCode = .failure
      return outcome
    }
    do throws(StepFunctionsTaskError) {
      let answer = try await StepFunctionsHandler(chart: chart, coding: .json).handle(payload)
      outcome.output = answer.jsonText + "\n"
    } catch {
      outcome.output =
        ChartValue.object(["error": .string(error.error), "cause": .string(error.cause)]).jsonText
        + "\n"
      outcome.exitCode = .failure
    }
    return outcome
  }

  /// The cause of the `States.Timeout` that `--fail 'State=timeout'` answers for
  /// `payload`, when it asks for that state's code (not a nested chart's, not a merge or a
  /// catch step) and the state's first `--fail` value is a timeout; `nil` otherwise.
  private static func forcedTimeout(
    of payload: ChartValue, in chart: Flowchart<ChartValue>,
    failures: [(name: String, attempt: ForcedAttempt, text: String)]
  ) -> String? {
    guard payload[path: "nested"] == nil, (payload[path: "step"] ?? "state") == "state",
      case .string(let name)? = payload[path: "state"],
      failures.first(where: { $0.name == name })?.attempt == .timeout,
      let state = chart.state(named: name), chart.scriptableModifiers(of: state)?.timeout != nil
    else { return nil }
    return "'\(name)' did not finish within its timeout (forced by --fail)"
  }

  /// The outcome of a usage error of `handle`: its message and the command's usage.
  private static func usageFailure(_ error: UsageError) -> Outcome {
    var usage = error
    usage.command = "handle"
    var outcome = Outcome()
    outcome.errorOutput = Help.text(of: usage, commands: commands)
    outcome.exitCode = .usageError
    return outcome
  }
}
