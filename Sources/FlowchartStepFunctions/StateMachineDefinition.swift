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
  /// `Parallel` followed by a task that runs its merge; a retry, a `Retry` on the error the
  /// handler reports when the rule's filter takes the Swift error; catch routes, exits of a
  /// `Choice` the handler answers with (a timeout, a `Catch` followed by a task that runs the
  /// route's handler). The DocC article "Running on AWS Step
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
  /// The names taken so far in the whole machine, a map's element chart's included.
  var taken = StateMachineNames()
  /// The maps whose element chart this chart is (outermost first), by `StateID.index`: what
  /// a task's payload names as `map` so that the handler finds the chart.
  var mapPath: [Int] = []
  /// What the names and comments of an element chart's states start with: its map's.
  var namePrefix = ""
  var commentPrefix = ""
  /// Whether the chart's ends report their final state and decision (a subflow's chart,
  /// written inline: its leave task reads them), and whether an end could not.
  var reportsEnding = false
  private var hasUnreportedEnd = false
  /// The inline chart of each subflow written inline, with its `Parallel` and leave task's
  /// names, by index.
  private var inlineSubflows: [(machine: ChartValue, run: String, leave: String)?] = []
  /// The `ItemProcessor` of each map written as an inline `Map` state, by index.
  private var itemProcessors: [ChartValue?] = []
  /// Each state's own ASL name (its task, or its `Parallel`), by index.
  private var names: [String] = []
  /// The names of the states the export adds, by index: the `Choice`, the merge, the catch
  /// handlers (in route order).
  private var decideNames: [String?] = []
  private var mergeNames: [String?] = []
  /// The tasks that run a catch route's handler on a timeout, by index: at most one, the
  /// first route that takes the state's timeout error.
  private var catchNames: [String?] = []
  /// The `Succeed` a final state with catch routes ends at, after its `Choice`.
  private var endNames: [String?] = []
  /// The `Map` state and the collect task of each inline map, by index.
  private var mapNames: [(each: String, collect: String)?] = []
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
  /// The field where a map's items task leaves the elements, and its `Map` the element runs'
  /// final contexts, for the collect.
  static var itemsField: String { "flowchartItems" }
  /// The field where a subflow written inline keeps its chart's context, then its end.
  static var innerField: String { "flowchartInner" }

  mutating func export(comment: String?) throws(StepFunctionsExportError) -> StateMachineDefinition
  {
    guard let machine = exportMachine() else {
      throw StepFunctionsExportError(problems: problems)
    }
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

  /// The state machine of the chart, or `nil` with ``problems`` when ASL cannot say it.
  mutating func exportMachine() -> ChartValue? {
    assignNames()
    reached = Array(repeating: false, count: chart.states.count)
    let machine = self.machine(from: chart.start)
    guard problems.isEmpty, !hasUnreportedEnd else { return Optional.none }
    return machine
  }

  /// Names every state, and the states the export adds, in state order (a map's element
  /// chart right after the map): the same chart gets the same names.
  private mutating func assignNames() {
    for id in chart.states {
      let info = chart[id]
      names.append(taken.take(namePrefix + info.name))
      // A state with several exits (a condition, a multiple condition, a subflow that
      // follows its chart's end), or with catch routes, decides in a Choice.
      let modifiers = chart.exportedModifiers(of: id)
      let catches = info.kind != .dispatch && !(modifiers?.catches.isEmpty ?? true)
      let decides =
        info.kind != .dispatch && (info.exits.contains { $0.label != .next } || catches)
      let name = namePrefix + info.name
      decideNames.append(decides ? taken.take(name, suffix: ".decide") : nil)
      let merges = chart.exportedDispatch(of: id)?.hasMerge ?? false
      mergeNames.append(merges ? taken.take(name, suffix: ".merge") : nil)
      let timeoutCatch = catches ? modifiers?.timeoutRoute?.catchRoute : nil
      catchNames.append(timeoutCatch.map { taken.take(name, suffix: ".catch\($0 + 1)") })
      let ends = catches && info.isFinal
      endNames.append(ends ? taken.take(name, suffix: ".end") : nil)
      itemProcessors.append(info.kind == .map && modifiers == nil ? itemProcessor(of: id) : nil)
      if info.kind == .subflow, modifiers == nil, !info.isFinal, let machine = inlineChart(of: id) {
        inlineSubflows.append(
          (machine, taken.take(name, suffix: ".run"), taken.take(name, suffix: ".leave")))
      } else {
        inlineSubflows.append(nil)
      }
      // An inline map: its items task is the state's own name, then the Map and the collect.
      if itemProcessors[id.index] != nil {
        mapNames.append((taken.take(name, suffix: ".each"), taken.take(name, suffix: ".collect")))
      } else {
        mapNames.append(nil)
      }
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
      if info.kind != .dispatch {
        targets += chart.exportedModifiers(of: id)?.catches.map(\.target) ?? []
      }
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
    let comment = "\(commentPrefix)\(info.kind) '\(info.name)' (\(id))"
    // Where the flow goes after the state's code: an end, or the next state.
    func ending(_ fields: inout [String: ChartValue], next: StateID?) {
      if let next {
        fields["Next"] = .string(names[next.index])
      } else {
        fields["End"] = true
        if reportsEnding { hasUnreportedEnd = true }
      }
    }
    let nextExit = info.exits.first { $0.label == .next }?.target
    switch info.kind.code {
    case .action, .subflow, .map, .waiting, .condition, .multipleCondition:
      if let (machine, run, leave) = inlineSubflows[id.index] {
        var enter = task(for: id, step: "enter", waits: false)
        enter["Comment"] = .string(comment)
        enter["ResultPath"] = .string("$.\(Self.innerField)")
        enter["Next"] = .string(run)
        result.append((names[id.index], .object(enter)))
        result.append(
          (
            run,
            [
              "Type": "Parallel",
              "Comment": .string("the chart of subflow '\(info.name)' (\(id))"),
              "InputPath": .string("$.\(Self.innerField).inner"), "Branches": [machine],
              "ResultPath": .string("$.\(Self.innerField)"), "Next": .string(leave),
            ]
          ))
        var leaving = task(for: id, step: "leave", waits: false)
        leaving["Comment"] = .string("the end of subflow '\(info.name)' (\(id))")
        if let decide = decideNames[id.index] {
          leaving["Next"] = .string(decide)
          result.append((decide, choice(of: info, catches: [])))
        } else {
          leaving["OutputPath"] = "$.context"
          ending(&leaving, next: nextExit)
        }
        result.insert((leave, .object(leaving)), at: 2)
        return result
      }
      refuseNestedWaits(of: info)
      if let processor = itemProcessors[id.index], let (each, collect) = mapNames[id.index] {
        return inlineMap(id, processor: processor, each: each, collect: collect, comment: comment)
      }
      var task = self.task(
        for: id, step: "state", waits: info.kind == .waiting,
        countsRetries: modifiers?.retry.map { $0.count > 0 } ?? false)
      task["Comment"] = .string(comment)
      if let decide = decideNames[id.index] {
        // Several exits, or catch routes: a Choice on the exit the code took.
        task["Next"] = .string(decide)
        result.append((decide, choice(of: info, catches: modifiers?.catches ?? [])))
        if let end = endNames[id.index] {
          if reportsEnding { hasUnreportedEnd = true }
          result.append(
            (
              end,
              [
                "Type": "Succeed",
                "Comment": .string("the end of \(info.kind) '\(info.name)' (\(id))"),
              ]
            ))
        }
      } else {
        if info.isFinal && reportsEnding {
          // The end of a subflow's chart written inline: its leave task reads which state
          // ended it, and how.
          task["ResultSelector"] = [
            "context.$": "$.context", "decision.$": "$.decision",
            "finalState": .number(Double(id.index)),
          ]
          task["End"] = true
        } else {
          task["OutputPath"] = "$.context"
          ending(&task, next: info.isFinal ? nil : nextExit)
        }
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

  /// The `Choice` after the task of a state with several exits or with catch routes: on the
  /// exit its code took (`catch1`, … for the route that caught its error), its `default`
  /// (or `no`, or its only `next`) as `Default`; a final state's `Default` is its `.end`.
  private func choice(of info: StateInfo, catches: [ExportedModifiers.Catch]) -> ChartValue {
    var choices: [ChartValue] = []
    var fallback: String?
    let onlyNext = info.exits.allSatisfy { $0.label == .next }
    for exit in info.exits {
      if exit.label == .no || exit.label == .default || (onlyNext && !info.isFinal) {
        fallback = names[exit.target.index]
        continue
      }
      if info.isFinal && exit.label == .next { continue }
      let text = exit.label.key ?? exit.label.description
      choices.append([
        "Variable": "$.exit", "StringEquals": .string(text),
        "Next": .string(names[exit.target.index]),
      ])
    }
    for (index, route) in catches.enumerated() {
      choices.append([
        "Variable": "$.exit", "StringEquals": .string("catch\(index + 1)"),
        "Next": .string(names[route.target.index]),
      ])
    }
    if info.isFinal, let end = endNames[info.id.index] { fallback = end }
    var fields: [String: ChartValue] = [
      "Type": "Choice", "Choices": .array(choices), "OutputPath": "$.context",
      "Comment": .string("the decision of \(info.kind) '\(info.name)' (\(info.id))"),
    ]
    if let fallback { fields["Default"] = .string(fallback) }
    return .object(fields)
  }

  /// A `Task` that sends `step` of state `id` to its resource.
  private func task(
    for id: StateID, step: String, waits: Bool, route: Int? = nil, countsRetries: Bool = false
  ) -> [String: ChartValue] {
    var payload: [String: ChartValue] = [
      "state": .string(chart[id].name), "stateID": .number(Double(id.index)),
      "step": .string(step), "context.$": "$",
    ]
    if let route { payload["route"] = .number(Double(route)) }
    if !mapPath.isEmpty { payload["nested"] = .array(mapPath.map { .number(Double($0)) }) }
    if waits { payload["waitsForInput"] = true }
    // The handler retries an error only while the state's retry has attempts left.
    if countsRetries { payload["retryCount.$"] = "$$.State.RetryCount" }
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

  /// Writes `modifiers` on `task`: `TimeoutSeconds`; a `Retry` on `Flowchart.Retry`, the
  /// error the handler fails an attempt with when the state's retry takes its error (and on
  /// `States.Timeout` when the retry takes the state's timeout error); a `Catch` on
  /// `States.Timeout` for the first catch route that takes the timeout error, with the task
  /// that runs its handler (appended to `added`). The handler answers the other errors a
  /// catch route takes itself, with an exit the state's `Choice` follows.
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
    if let retry = modifiers.retry, retry.count > 0 {
      var errors: [ChartValue] = [.string(StepFunctionsHandler<Context>.retryError)]
      if modifiers.timeoutRoute?.retries == true { errors.append("States.Timeout") }
      var retrier: [String: ChartValue] = [
        "ErrorEquals": .array(errors),
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
    if let index = modifiers.timeoutRoute?.catchRoute, let name = catchNames[id.index] {
      task["Catch"] = [
        [
          "ErrorEquals": ["States.Timeout"], "ResultPath": .string("$.\(Self.errorField)"),
          "Next": .string(name),
        ]
      ]
      var handler = self.task(for: id, step: "catch", waits: false, route: index)
      handler["Comment"] = .string(
        "catch route \(index + 1) of '\(info.name)' (\(id)), on a timeout")
      handler["OutputPath"] = "$.context"
      handler["Next"] = .string(names[modifiers.catches[index].target.index])
      added.append((name, .object(handler)))
    }
  }

  /// Records that `info`'s task cannot run the chart it runs nested as a run does, if so:
  /// the task runs the whole chart at once, and nothing can send a value to a state waiting
  /// in it.
  private mutating func refuseNestedWaits(of info: StateInfo) {
    let waiting = chart.exportedNestedWaitingStates(of: info.id)
    guard !waiting.isEmpty else { return }
    let list = waiting.map { "'\($0)'" }.joined(separator: ", ")
    refuse(
      info,
      "runs a chart whose \(waiting.count == 1 ? "state" : "states") \(list) \(waiting.count == 1 ? "waits" : "wait") for input, and its task runs that whole chart at once, where nothing can send the value: move the wait out to the outer chart, before or after \(info.kind == .map ? "the map" : "the subflow")"
    )
  }

  /// The states of a map written as an inline `Map`: a task (the state's own name) that
  /// takes the elements from the context (step `items`, into `$.flowchartItems`), the `Map`
  /// state (`<name>.each`) that runs the element chart on each, as Flowchart's map runs it,
  /// at most `MaxConcurrency` at once, and a task (`<name>.collect`) that writes the element
  /// runs' final contexts back into the context with the map's collect closure.
  private mutating func inlineMap(
    _ id: StateID, processor: ChartValue, each: String, collect: String, comment: String
  ) -> [(String, ChartValue)] {
    let info = chart[id]
    var items = task(for: id, step: "items", waits: false)
    items["Comment"] = .string(comment)
    items["ResultPath"] = .string("$.\(Self.itemsField)")
    items["Next"] = .string(each)
    var map: [String: ChartValue] = [
      "Type": "Map", "Comment": .string("the element runs of map '\(info.name)' (\(id))"),
      "ItemsPath": .string("$.\(Self.itemsField).items"), "ItemProcessor": processor,
      "ResultPath": .string("$.\(Self.itemsField)"), "Next": .string(collect),
    ]
    if let limit = chart.exportedMap(of: id)?.maxConcurrency {
      map["MaxConcurrency"] = .number(Double(limit))
    }
    var collecting = task(for: id, step: "collect", waits: false)
    collecting["Comment"] = .string("the collect of map '\(info.name)' (\(id))")
    collecting["OutputPath"] = "$.context"
    let next = info.isFinal ? nil : info.exits.first { $0.label == .next }?.target
    if let next {
      collecting["Next"] = .string(names[next.index])
    } else {
      collecting["End"] = true
      if reportsEnding { hasUnreportedEnd = true }
    }
    return [
      (names[id.index], .object(items)), (each, .object(map)), (collect, .object(collecting)),
    ]
  }

  /// The chart of the subflow `id` written inline, its states named after the subflow; `nil`
  /// when the subflow runs in one task instead: it has a step limit, its chart's context is
  /// neither `ChartValue` nor `Codable`, or its chart has a state ASL cannot say or an end
  /// that cannot report its final state (a final dispatch or map, a final state with catch
  /// routes).
  private mutating func inlineChart(of id: StateID) -> ChartValue? {
    // A waiting state in a subflow's chart fails Flowchart's run, where nothing can send it
    // a value: such a subflow is refused, not written inline where it would wait.
    guard chart.isExportableSubflow(id), chart.exportedNestedWaitingStates(of: id).isEmpty
    else { return nil }
    let visitor = ElementChartExport(
      resources: resources, taken: taken, mapPath: mapPath + [id.index], reportsEnding: true,
      namePrefix: namePrefix + chart[id].name + ".",
      commentPrefix: "\(commentPrefix)in subflow '\(chart[id].name)' (\(id)): ")
    guard let (inner, names) = chart.visitSubflowChart(of: id, visitor), let machine = inner
    else { return nil }
    taken = names
    return machine
  }

  /// The `ItemProcessor` of the map `id` as an inline `Map` state, its element chart's
  /// states named after the map; `nil` when the map runs in one task instead: it tolerates
  /// failures (an inline `Map` fails as soon as an element does, and its failures cannot
  /// carry the `RunError` a collect closure reads), its element runs have a step limit, its
  /// elements are neither `ChartValue` nor `Codable`, or its element chart has a state ASL
  /// cannot say.
  private mutating func itemProcessor(of id: StateID) -> ChartValue? {
    // A waiting state in an element chart fails Flowchart's run, where nothing can send it
    // a value: such a map is refused, not written inline where it would wait.
    guard let map = chart.exportedMap(of: id), map.toleratedFailures == 0, !map.hasStepLimit,
      chart.exportedNestedWaitingStates(of: id).isEmpty
    else { return nil }
    let visitor = ElementChartExport(
      resources: resources, taken: taken, mapPath: mapPath + [id.index], reportsEnding: false,
      namePrefix: namePrefix + chart[id].name + ".",
      commentPrefix: "\(commentPrefix)in map '\(chart[id].name)' (\(id)): ")
    guard let (element, names) = chart.visitElementChart(ofMap: id, visitor),
      let machine = element
    else { return nil }
    taken = names
    guard case .object(var fields) = machine else { return nil }
    fields["ProcessorConfig"] = ["Mode": "INLINE"]
    return .object(fields)
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

/// Writes a map's element chart as the `ItemProcessor` of an inline `Map` state, whatever its
/// element type.
private struct ElementChartExport: ExportedChartVisitor {
  let resources: StepFunctionsResources
  let taken: StateMachineNames
  let mapPath: [Int]
  let reportsEnding: Bool
  let namePrefix: String
  let commentPrefix: String

  /// The element chart's machine and the names taken with it; no machine when its elements
  /// cannot travel as JSON or it has a state ASL cannot say.
  func visit<Element: Sendable>(_ chart: Flowchart<Element>) -> (ChartValue?, StateMachineNames) {
    guard ContextCoding<Element>.elements != nil else { return (nil, taken) }
    var exporter = StateMachineExporter(chart: chart, resources: resources)
    exporter.taken = taken
    exporter.mapPath = mapPath
    exporter.reportsEnding = reportsEnding
    exporter.namePrefix = namePrefix
    exporter.commentPrefix = commentPrefix
    guard let machine = exporter.exportMachine() else { return (nil, taken) }
    return (machine, exporter.taken)
  }
}
