import Flowchart
import FlowchartFiles
import Foundation

/// A compiled chart written in the Amazon States Language (JSONPath), ready for AWS Step
/// Functions: see `Flowchart.stateMachineDefinition(resources:comment:)`.
public struct StateMachineDefinition: Sendable {
  /// The definition as a JSON value.
  public let document: ChartValue
  /// The ASL name of each state of the chart, by `StateID.index`; `nil` for a
  /// state the start does not reach (an entry point of its own), which the definition leaves
  /// out.
  public let stateNames: [String?]

  /// The definition as JSON text: two-space indentation, keys sorted, one line break at the
  /// end, so that the same chart always gives the same bytes.
  public var text: String {
    var text = ""
    PrettyJSON.write(document, indent: "", to: &text)
    text += "\n"
    return text
  }

  /// The largest definition Step Functions accepts, in bytes of its JSON text.
  public static let sizeLimit = 1_048_576
}

/// Why a chart cannot be exported: every state the Amazon States Language cannot express as
/// Flowchart runs it, each named with where it was declared and why.
public struct StepFunctionsExportError: Error, Sendable, CustomStringConvertible {
  /// One state the export refuses.
  public struct Problem: Sendable, Hashable, CustomStringConvertible {
    /// The state's name, as declared.
    public let stateName: String
    /// Where the state was declared.
    public let location: SourceLocation
    /// The reason, a sentence that names the state and says what to do.
    public let message: String

    /// `file:line: message`.
    public var description: String { "\(location): \(message)" }
  }

  /// The problems, in state order.
  public let problems: [Problem]

  /// One problem a line.
  public var description: String { problems.map(\.description).joined(separator: "\n") }
}

extension Flowchart {
  /// The chart as an Amazon States Language definition, whose tasks call `resources`.
  ///
  /// The export walks the compiled graph from its start: every state's code becomes a `Task`
  /// that sends the state's name and the execution's JSON document to its resource and takes
  /// back `{"context": …, "exit": …}` (see ``StepFunctionsHandler``); a condition's or a
  /// multiple condition's task is followed by a `Choice` on the exit; a dispatch becomes a
  /// `Parallel` followed by a task that runs its merge; each catch route, a `Catch` followed
  /// by a task that runs the route's handler. The DocC article "Running on AWS Step
  /// Functions" has the whole mapping and what is refused.
  ///
  /// - Parameters:
  ///   - resources: Where the tasks send their work.
  ///   - comment: The definition's top-level `Comment`.
  /// - Throws: A ``StepFunctionsExportError`` naming every state ASL cannot express as
  ///   Flowchart runs it, or the chart when the definition is over 1 MB.
  public func stateMachineDefinition(
    resources: StepFunctionsResources = .localQueue, comment: String? = nil
  ) throws(StepFunctionsExportError) -> StateMachineDefinition {
    var exporter = StateMachineExporter(chart: self, resources: resources)
    let definition = try exporter.export(comment: comment)
    let size = definition.text.utf8.count
    guard size <= StateMachineDefinition.sizeLimit else {
      let info = self[start]
      throw StepFunctionsExportError(problems: [
        .init(
          stateName: info.name, location: info.location,
          message:
            "The chart's definition is \(size) bytes, over the 1,048,576 bytes Step Functions accepts: split the chart, and run the parts as separate state machines."
        )
      ])
    }
    return definition
  }
}

/// Walks a compiled chart and writes its states as ASL states.
struct StateMachineExporter<Context: Sendable> {
  let chart: Flowchart<Context>
  let resources: StepFunctionsResources
  /// Each state's own ASL name (its task, or its `Parallel`), by index.
  private var names: [String] = []
  /// The names of the states the export adds, by index: the `Choice`, the merge, the catch
  /// handlers (in route order).
  private var decideNames: [String?] = []
  private var mergeNames: [String?] = []
  private var catchNames: [[String]] = []
  private var reached: [Bool] = []
  private var problems: [StepFunctionsExportError.Problem] = []

  init(chart: Flowchart<Context>, resources: StepFunctionsResources) {
    self.chart = chart
    self.resources = resources
  }

  /// The field of the document where a `Parallel` leaves its branches' contexts for the
  /// merge, and where a `Catch` leaves the error for the route's handler.
  static var branchesField: String { "flowchartBranches" }
  static var errorField: String { "flowchartError" }

  mutating func export(comment: String?) throws(StepFunctionsExportError) -> StateMachineDefinition
  {
    assignNames()
    reached = Array(repeating: false, count: chart.states.count)
    let machine = self.machine(from: chart.start)
    guard problems.isEmpty else { throw StepFunctionsExportError(problems: problems) }
    var document = machine
    if case .object(var fields) = document {
      fields["Comment"] = .string(
        comment
          ?? "Exported by Flowchart from the chart that starts at '\(chart[chart.start].name)'."
      )
      document = .object(fields)
    }
    return StateMachineDefinition(
      document: document,
      stateNames: chart.states.map { reached[$0.index] ? names[$0.index] : nil })
  }

  /// Names every state, and the states the export adds, in state order: the same chart gets
  /// the same names.
  private mutating func assignNames() {
    var taken = StateMachineNames()
    for id in chart.states {
      let info = chart[id]
      names.append(taken.take(info.name))
      // A state with several exits (a condition, a multiple condition, a subflow that
      // follows its chart's end) decides in a Choice.
      let decides =
        info.kind != .dispatch && info.exits.contains { $0.label != .next }
      decideNames.append(decides ? taken.take(info.name, suffix: ".decide") : nil)
      let merges = chart.exportedDispatch(of: id)?.hasMerge ?? false
      mergeNames.append(merges ? taken.take(info.name, suffix: ".merge") : nil)
      let routes = chart.exportedModifiers(of: id)?.catches.count ?? 0
      catchNames.append((0..<routes).map { taken.take(info.name, suffix: ".catch\($0 + 1)") })
    }
  }

  /// The state machine (`StartAt` and `States`) of the flow that starts at `start`: the
  /// states its exits and catch routes reach, a dispatch's branches as machines of their own.
  private mutating func machine(from start: StateID) -> ChartValue {
    var states: [String: ChartValue] = [:]
    var pending = [start]
    reached[start.index] = true
    while let id = pending.popLast() {
      let info = chart[id]
      var targets = info.exits.filter { $0.label.branch == nil }.map(\.target)
      targets += chart.exportedModifiers(of: id)?.catches.map(\.target) ?? []
      for target in targets.reversed() where !reached[target.index] {
        reached[target.index] = true
        pending.append(target)
      }
      for (name, state) in self.states(of: id) { states[name] = state }
    }
    return .object(["StartAt": .string(names[start.index]), "States": .object(states)])
  }

  /// The ASL states of `id`: its own, then those the export adds for it.
  private mutating func states(of id: StateID) -> [(String, ChartValue)] {
    let info = chart[id]
    let modifiers = chart.exportedModifiers(of: id)
    var result: [(String, ChartValue)] = []
    let comment = "\(info.kind) '\(info.name)' (\(id))"
    // Where the flow goes after the state's code: an end, or the next state.
    func ending(_ fields: inout [String: ChartValue], next: StateID?) {
      if let next {
        fields["Next"] = .string(names[next.index])
      } else {
        fields["End"] = true
      }
    }
    let nextExit = info.exits.first { $0.label == .next }?.target
    switch info.kind.code {
    case .action, .subflow, .map, .waiting, .condition, .multipleCondition:
      var task = self.task(for: id, step: "state", waits: info.kind == .waiting)
      task["Comment"] = .string(comment)
      if let decide = decideNames[id.index] {
        // Several exits: a Choice on the one the code took.
        task["Next"] = .string(decide)
        result.append((decide, choice(of: info)))
      } else {
        task["OutputPath"] = "$.context"
        ending(&task, next: info.isFinal ? nil : nextExit)
      }
      apply(modifiers, of: id, to: &task, &result)
      result.insert((names[id.index], .object(task)), at: 0)
    case .dispatch:
      guard let dispatch = chart.exportedDispatch(of: id) else { return [] }
      refuse(dispatch, modifiers, of: info)
      var parallel: [String: ChartValue] = [
        "Type": "Parallel", "Comment": .string(comment),
        "Branches": .array(dispatch.branchStarts.map { machine(from: $0) }),
      ]
      let after = info.isFinal ? nil : nextExit
      if let merge = mergeNames[id.index] {
        parallel["ResultPath"] = .string("$.\(Self.branchesField)")
        parallel["Next"] = .string(merge)
        var task = self.task(for: id, step: "merge", waits: false)
        task["Comment"] = .string("the merge of dispatch '\(info.name)' (\(id))")
        task["OutputPath"] = "$.context"
        ending(&task, next: after)
        result.append((merge, .object(task)))
      } else {
        parallel["ResultPath"] = .null
        ending(&parallel, next: after)
      }
      result.insert((names[id.index], .object(parallel)), at: 0)
    case .delay:
      // A `Wait` state: `Seconds` for a duration, `TimestampPath` for a time a chart file's
      // context key holds; a Swift `until:` closure, which only a Task could run, is refused.
      var wait: [String: ChartValue] = ["Type": "Wait", "Comment": .string(comment)]
      switch chart.exportedDelay(of: id) {
      case .duration(let duration)?
      where duration.components.attoseconds == 0 && duration.components.seconds >= 0:
        wait["Seconds"] = .number(Double(duration.components.seconds))
      case .until(let key?)?: wait["TimestampPath"] = .string("$.\(key)")
      case .duration?:
        refuse(
          info,
          "waits for a fraction of a second, and a Step Functions Wait state counts whole seconds: wait for whole seconds"
        )
      case .until(nil)?, nil:
        refuse(
          info,
          "waits until a time its Swift closure reads from the context, which a Step Functions Wait state cannot run: declare it in a chart file, until a context key that holds an RFC 3339 time (a TimestampPath)"
        )
      }
      if modifiers != nil {
        refuse(
          info,
          "has retries or catch routes, which a Step Functions Wait state does not take: leave them out"
        )
      }
      ending(&wait, next: info.isFinal ? nil : nextExit)
      result.append((names[id.index], .object(wait)))
    }
    return result
  }

  /// The `Choice` after the task of a state with several exits: on the exit its code took,
  /// its `default` (or `no`) as `Default`.
  private func choice(of info: StateInfo) -> ChartValue {
    var choices: [ChartValue] = []
    var fallback: StateID?
    for exit in info.exits {
      if exit.label == .no || exit.label == .default {
        fallback = exit.target
        continue
      }
      let text = exit.label.key ?? exit.label.description
      choices.append([
        "Variable": "$.exit", "StringEquals": .string(text),
        "Next": .string(names[exit.target.index]),
      ])
    }
    var fields: [String: ChartValue] = [
      "Type": "Choice", "Choices": .array(choices), "OutputPath": "$.context",
      "Comment": .string("the decision of \(info.kind) '\(info.name)' (\(info.id))"),
    ]
    if let fallback { fields["Default"] = .string(names[fallback.index]) }
    return .object(fields)
  }

  /// A `Task` that sends `step` of state `id` to its resource.
  private func task(for id: StateID, step: String, waits: Bool, route: Int? = nil)
    -> [String: ChartValue]
  {
    var payload: [String: ChartValue] = [
      "state": .string(chart[id].name), "stateID": .number(Double(id.index)),
      "step": .string(step), "context.$": "$",
    ]
    if let route { payload["route"] = .number(Double(route)) }
    if waits { payload["waitsForInput"] = true }
    switch resources.pattern(for: chart[id].name) {
    case .function(let arn):
      return ["Type": "Task", "Resource": .string(arn), "Parameters": .object(payload)]
    case .functionPerState(let pattern):
      let arn = pattern.replacingOccurrences(of: "{name}", with: names[id.index])
      return ["Type": "Task", "Resource": .string(arn), "Parameters": .object(payload)]
    case .queue(let url):
      payload["taskToken.$"] = "$$.Task.Token"
      return [
        "Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken",
        "Parameters": ["QueueUrl": .string(url), "MessageBody": .object(payload)],
      ]
    }
  }

  /// Writes `modifiers` on `task`: `TimeoutSeconds`, `Retry`, and a `Catch` per route with
  /// the task that runs its handler (appended to `added`).
  private mutating func apply(
    _ modifiers: ExportedModifiers?, of id: StateID, to task: inout [String: ChartValue],
    _ added: inout [(String, ChartValue)]
  ) {
    guard let modifiers else { return }
    let info = chart[id]
    if let timeout = modifiers.timeout {
      if let seconds = Self.wholeSeconds(timeout) {
        task["TimeoutSeconds"] = .number(Double(seconds))
      } else {
        refuse(
          info,
          "has a timeout of \(timeout), and a Step Functions task's TimeoutSeconds is a whole number of seconds: round the timeout to whole seconds"
        )
      }
    }
    if let retry = modifiers.retry, retry.count > 0, let error = errorName(retry.errors, info) {
      var retrier: [String: ChartValue] = [
        "ErrorEquals": [.string(error)],
        "MaxAttempts": .number(Double(retry.count)),
        "IntervalSeconds": .number(Double(Self.roundedUpSeconds(retry.initialDelay))),
        "BackoffRate": .number(retry.multiplier),
      ]
      if let maximum = retry.maximumDelay {
        retrier["MaxDelaySeconds"] = .number(Double(Self.roundedUpSeconds(maximum)))
      }
      switch retry.jitter {
      case nil: break
      case .full?: retrier["JitterStrategy"] = "FULL"
      case .equal?:
        refuse(
          info,
          "retries with equal jitter, and Step Functions' JitterStrategy is FULL or NONE: use `.jittered(.full)` or no jitter"
        )
      }
      task["Retry"] = [.object(retrier)]
    }
    var catchers: [ChartValue] = []
    for (index, route) in modifiers.catches.enumerated() {
      let name = catchNames[id.index][index]
      guard let error = errorName(route.errors, info) else { continue }
      catchers.append([
        "ErrorEquals": [.string(error)], "ResultPath": .string("$.\(Self.errorField)"),
        "Next": .string(name),
      ])
      var handler = self.task(for: id, step: "catch", waits: false, route: index)
      handler["Comment"] = .string("catch route \(index + 1) of '\(info.name)' (\(id))")
      handler["OutputPath"] = "$.context"
      handler["Next"] = .string(names[route.target.index])
      added.append((name, .object(handler)))
      // A catch-all takes every error: the routes after it are never taken.
      if error == "States.ALL" { break }
    }
    if !catchers.isEmpty { task["Catch"] = .array(catchers) }
  }

  /// Records that `dispatch` cannot be written as a `Parallel` that runs the same, if so.
  private mutating func refuse(
    _ dispatch: ExportedDispatch, _ modifiers: ExportedModifiers?, of info: StateInfo
  ) {
    if dispatch.tolerance != 0 || dispatch.quorum < dispatch.branchStarts.count {
      refuse(
        info,
        "joins its branches with a policy other than `.all`, and a Step Functions Parallel state fails as soon as one branch fails and never stops early: join with `.all`, or catch each branch's failures inside the branch"
      )
    }
    if dispatch.hasPrerequisites {
      refuse(
        info,
        "has branches that wait for other branches, and a Parallel state starts all its branches at once: nest a dispatch in a branch instead"
      )
    }
    if dispatch.hasReport {
      refuse(
        info,
        "has a report closure, which no Step Functions state can run: fold what it reads into the merge"
      )
    }
    if modifiers != nil {
      refuse(
        info,
        "has a timeout, retries or catch routes, which the export writes on tasks only: put them on the states of its branches"
      )
    }
  }

  private mutating func refuse(_ info: StateInfo, _ reason: String) {
    problems.append(
      .init(
        stateName: info.name, location: info.location,
        message: "\(info.kind.description.capitalizedFirst) '\(info.name)' \(reason)."))
  }

  /// The ASL error name of the errors a retry or catch takes (the name
  /// ``StepFunctionsHandler`` fails a task with), or `nil`, refused, when a closure chooses
  /// them.
  private mutating func errorName(_ errors: ExportedErrors, _ info: StateInfo) -> String? {
    switch errors {
    case .all: return "States.ALL"
    case .timeouts: return "States.Timeout"
    case .type(let type):
      // A chart file's built-in names, and the timeout's Swift type.
      switch type {
      case "timeout", "StateTimeoutError": return "States.Timeout"
      case "failure": return "ChartFailure"
      default: return type
      }
    case .chosenByCode:
      refuse(
        info,
        "retries or catches the errors a closure chooses, which a Step Functions Retry or Catch cannot name: limit the rule to an error type"
      )
      return nil
    }
  }

  /// `duration` in seconds when it is a whole number of them, at least one.
  static func wholeSeconds(_ duration: Duration) -> Int64? {
    let (seconds, attoseconds) = duration.components
    return attoseconds == 0 && seconds >= 1 ? seconds : nil
  }

  /// `duration` rounded up to whole seconds, at least one: what ASL's delays can say.
  static func roundedUpSeconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return max(1, seconds + (attoseconds > 0 ? 1 : 0))
  }
}

extension String {
  /// The string with its first character uppercased.
  fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
