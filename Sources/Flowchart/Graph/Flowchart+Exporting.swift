// Exporting: what a front end that writes a compiled chart in another engine's language (the
// FlowchartStepFunctions module's Amazon States Language) reads of it beyond the public
// queries, and the calls that run one state's code at a time, as a task handler of that
// engine does. Package API: it names no internal type, so the exporter sees values only.

/// A state's timeout, retry and catch routes, as an exporter reads them.
package struct ExportedModifiers: Sendable {
  /// A state's retry rule.
  package struct Retry: Sendable {
    /// How many times the code runs again after it fails.
    package var count: Int
    /// The delay before the first retry; zero for none.
    package var initialDelay: Duration
    /// What each delay is multiplied by for the next one; 1 for a fixed delay.
    package var multiplier: Double
    /// The longest delay, for an exponential backoff; `nil` otherwise.
    package var maximumDelay: Duration?
    /// Whether the delays are jittered, and how.
    package var jitter: Backoff.Jitter?
  }

  /// A catch route.
  package struct Catch: Sendable {
    /// The state the route leads to.
    package var target: StateID
  }

  /// The state's timeout, if any.
  package var timeout: Duration?
  /// The state's retry rule, if any.
  package var retry: Retry?
  /// The state's catch routes, in the order they are tried.
  package var catches: [Catch]
  /// What the state's retry rule and catch routes do with the error of an attempt that timed
  /// out (the ``StateTimeoutError`` a run gives them); `nil` when the state has no timeout.
  package var timeoutRoute: ExportedFailureRoute?
}

/// What a state's retry rule and catch routes do with one error, their filters run on it as
/// a run runs them: an exporter's task handler reports it in words the engine can match.
package struct ExportedFailureRoute: Sendable, Hashable {
  /// Whether the retry rule takes the error (while it has attempts left).
  package var retries: Bool
  /// The position of the first catch route that takes it, once the retries are spent.
  package var catchRoute: Int?
}

/// How a dispatch runs, as an exporter reads it.
package struct ExportedDispatch: Sendable {
  /// The first state of each branch, in declaration order.
  package var branchStarts: [StateID]
  /// Whether the dispatch folds its branches' contexts back with a merge.
  package var hasMerge: Bool
  /// Whether any branch waits for another.
  package var hasPrerequisites: Bool
  /// How many branches may fail or be skipped before the dispatch fails: 0 for
  /// ``JoinPolicy/all``.
  package var tolerance: Int
  /// After how many successes the other branches are cancelled.
  package var quorum: Int
  /// Whether the dispatch has a report closure.
  package var hasReport: Bool
  /// How many branches may run at once.
  package var maxConcurrency: Int
}

/// What one state's code decided, run on its own (see ``Flowchart/runState(_:context:)``).
package enum ExportedStep: Sendable {
  /// The state took the exit at this position in its ``StateInfo/exits``.
  case exit(Int)
  /// The state, a final one, ended its flow with this decision.
  case ended(Decision)
}

extension Flowchart {
  /// The timeout, retry and catch routes of `state`, or `nil` when it has none.
  package func exportedModifiers(of state: StateID) -> ExportedModifiers? {
    let record = graph.records[state.index]
    guard let modifiers = record.declaration.modifiers else { return nil }
    let retry = modifiers.retry.map { rule -> ExportedModifiers.Retry in
      let (initial, multiplier, maximum): (Duration, Double, Duration?) =
        switch rule.backoff.schedule {
        case .immediate: (.zero, 1, nil)
        case .fixed(let delay): (delay, 1, nil)
        case .exponential(let initial, let multiplier, let maximum): (initial, multiplier, maximum)
        }
      return ExportedModifiers.Retry(
        count: rule.count, initialDelay: initial, multiplier: multiplier, maximumDelay: maximum,
        jitter: rule.backoff.jitter)
    }
    let targets = graph.catchRoutes(of: Int32(state.index), modifiers)
    let catches = targets.map { ExportedModifiers.Catch(target: StateID($0.target)) }
    return ExportedModifiers(
      timeout: modifiers.timeout, retry: retry, catches: catches,
      timeoutRoute: exportedTimeoutError(of: state).map {
        exportedFailureRoute(of: state, error: $0)
      })
  }

  /// What the retry rule and catch routes of `state` do with `error`, their filters run on
  /// it as a run runs them (a typed rule's or route's `if:` closure included): whether the
  /// retry takes it (with attempts left), and which catch route takes it after.
  package func exportedFailureRoute(of state: StateID, error: any Error) -> ExportedFailureRoute {
    // The node's modifiers: a scripted chart's (the tool's `handle --fail`) also take the
    // script's `ScriptedFailure`, as its runs do; otherwise the declared ones.
    let node = graph.nodeBase[state.index]
    let modifiers =
      node.kind == .modified
      ? ModifiedCode.of(node).modifiers : graph.records[state.index].declaration.modifiers
    guard let modifiers else {
      return ExportedFailureRoute(retries: false, catchRoute: nil)
    }
    let retries = modifiers.retry.map { $0.count > 0 && $0.filter(error) } ?? false
    return ExportedFailureRoute(
      retries: retries, catchRoute: modifiers.catches.firstIndex { $0.filter(error) })
  }

  /// The error a run gives the modifiers of `state` when an attempt times out; `nil` when
  /// it has no timeout.
  package func exportedTimeoutError(of state: StateID) -> StateTimeoutError? {
    let record = graph.records[state.index]
    return record.declaration.modifiers?.timeout.map {
      StateTimeoutError(stateName: record.name, limit: $0)
    }
  }

  /// The waiting states of the charts `state` runs nested (a subflow's or a map's, and
  /// theirs, all the way down), by name: what a task that runs the whole chart at once
  /// cannot send a value to.
  package func exportedNestedWaitingStates(of state: StateID) -> [String] {
    guard let nested = graph.records[state.index].attachment as? any ExportedNestedChart else {
      return []
    }
    return nested.waitingStateNames
  }

  /// How the dispatch `state` runs, or `nil` when `state` is not a dispatch.
  package func exportedDispatch(of state: StateID) -> ExportedDispatch? {
    let node = graph.nodeBase[state.index]
    guard node.kind == .dispatch else { return nil }
    let plan = graph.dispatches[Int(node.alternative)]
    return ExportedDispatch(
      branchStarts: plan.branchStarts.map(StateID.init), hasMerge: plan.merge != nil,
      hasPrerequisites: plan.prerequisites.contains { !$0.isEmpty }, tolerance: plan.tolerance,
      quorum: plan.quorum, hasReport: plan.report != nil, maxConcurrency: plan.maxConcurrency)
  }

  /// Runs the code of `state` alone on `context`, without its timeout, retries or catch
  /// routes (the engine that runs the exported chart applies those), and says which exit it
  /// took. A subflow or a map runs its whole chart, as it does in a run. A waiting state
  /// applies `input`, the value sent to it from outside.
  ///
  /// - Throws: What the state's code throws (a waiting state without `input`, or with an
  ///   input of another type, throws as it does outside a live run); a ``ScriptProblem`` for
  ///   a dispatch, which has no code of its own.
  package func runState(
    _ state: StateID, context: inout Context, input: (any Sendable)? = nil
  ) async throws -> ExportedStep {
    guard let input else { return try await runStateCode(state, context: &context) }
    let inbox = SingleInput(value: input)
    var copy = context
    let step = try await LiveInbox.$current.withValue(inbox) {
      try await runStateCode(state, context: &copy)
    }
    context = copy
    return step
  }

  private func runStateCode(_ state: StateID, context: inout Context) async throws -> ExportedStep {
    var node = graph.nodeBase[state.index]
    if node.kind == .modified { node = ModifiedCode.of(node).inner }
    guard node.kind != .dispatch else {
      throw ScriptProblem(
        stateName: graph.records[state.index].name,
        message:
          "Dispatch \(DisplayText.quoted(name: graph.records[state.index].name)) has no code of its own: run its branches' states, then its merge."
      )
    }
    let result = try await node.call(&context)
    let exits = graph.storedExits(of: state.index)
    switch result {
    case .key(let decision):
      return .ended(decision)
    case .outcome(let outcome):
      if node.isFinal { return .ended(outcome.decision) }
      let label: StoredExit.Label
      switch outcome {
      case .next: label = .next
      case .yes: label = .yes
      case .no: label = .no
      case .selected(let target):
        let index = exits.firstIndex { $0.target == target } ?? exits.startIndex
        return .exit(index - exits.startIndex)
      }
      let index = exits.firstIndex { $0.label == label } ?? exits.startIndex
      return .exit(index - exits.startIndex)
    }
  }

  /// Folds the final contexts of the dispatch `state`'s branches, in declaration order,
  /// into `original` with its merge, as its join does; returns `original` when it has none.
  package func mergeBranches(
    ofDispatch state: StateID, _ branches: [Context], original: Context
  ) throws -> Context {
    let node = graph.nodeBase[state.index]
    precondition(node.kind == .dispatch, "a dispatch")
    let plan = graph.dispatches[Int(node.alternative)]
    var context = original
    if let whole = plan.wholeMerge(Context.self) {
      try whole(&context, branches, original)
      return context
    }
    for branch in branches {
      try plan.merge(branch, original: original, into: &context)
    }
    return context
  }

  /// Runs the handler of the catch route at `route` of `state` on `context` with `error`,
  /// as a run does before it goes to the route's target.
  package func runCatchHandler(
    of state: StateID, route: Int, context: inout Context, error: any Error
  ) {
    guard let modifiers = graph.records[state.index].declaration.modifiers,
      modifiers.catches.indices.contains(route)
    else { return }
    let box = modifiers.catches[route].handler
    unsafeDowncast(box, to: CatchHandlerBox<Context>.self).function(&context, error)
  }
}

/// The mailbox ``Flowchart/runState(_:context:input:)`` lends a waiting state: the one value
/// sent to it.
private struct SingleInput: InputReceiving {
  let value: any Sendable
  func receive(for slot: InputSlot) async -> ReceivedInput { .value(value) }
}

/// A chart a state runs nested, as an exporter reads it.
private protocol ExportedNestedChart {
  /// The names of its waiting states, and those of the charts its own states run nested.
  var waitingStateNames: [String] { get }
}

extension Flowchart {
  /// The names of this chart's waiting states, and of those in its nested charts.
  fileprivate var waitingStateNames: [String] {
    states.flatMap { id in
      (self[id].kind == .waiting ? [self[id].name] : []) + exportedNestedWaitingStates(of: id)
    }
  }
}

extension SubflowRun: ExportedNestedChart {
  fileprivate var waitingStateNames: [String] { chart.waitingStateNames }
}

extension MapRun: ExportedNestedChart {
  fileprivate var waitingStateNames: [String] { chart.waitingStateNames }
}

/// What an exporter does with a chart of any context type: the element chart of a map.
package protocol ExportedChartVisitor {
  /// What the visit gives back.
  associatedtype Result
  /// Visits `chart`.
  func visit<Element: Sendable>(_ chart: Flowchart<Element>) -> Result
}

/// How a map runs, as an exporter reads it.
package struct ExportedMap: Sendable {
  /// How many element runs may go at once; `nil` for all at once.
  package var maxConcurrency: Int?
  /// How many element runs may fail without failing the map.
  package var toleratedFailures: Int
  /// Whether the element runs have a step limit.
  package var hasStepLimit: Bool
}

extension Flowchart {
  /// How the map `state` runs, or `nil` when `state` is not a map.
  package func exportedMap(of state: StateID) -> ExportedMap? {
    guard let map = graph.records[state.index].attachment as? any ExportedMapRun else {
      return nil
    }
    return map.exported
  }

  /// Visits the element chart of the map `state`; `nil` when `state` is not a map.
  package func visitElementChart<Visitor: ExportedChartVisitor>(
    ofMap state: StateID, _ visitor: Visitor
  ) -> Visitor.Result? {
    (graph.records[state.index].attachment as? any ExportedMapRun)?.visit(visitor)
  }

  /// The elements the map `state` takes from `context`, as its run takes them.
  package func mapElements(ofMap state: StateID, context: Context) throws -> [any Sendable] {
    guard let map = graph.records[state.index].attachment as? any ExportedMapRun else {
      throw ScriptProblem(
        stateName: graph.records[state.index].name,
        message: "\(DisplayText.quoted(name: graph.records[state.index].name)) is not a map.")
    }
    return try map.elements(of: context)
  }

  /// Writes the final contexts of every element run of the map `state` (in input order, none
  /// failed) into `context` with its collect closure, as the map does once its runs ended.
  package func collectMap(
    ofMap state: StateID, context: inout Context, outputs: [any Sendable]
  ) throws {
    guard let map = graph.records[state.index].attachment as? any ExportedMapRun else {
      throw ScriptProblem(
        stateName: graph.records[state.index].name,
        message: "\(DisplayText.quoted(name: graph.records[state.index].name)) is not a map.")
    }
    var whole: any Sendable = context
    try map.collect(into: &whole, outputs: outputs)
    if let collected = whole as? Context { context = collected }
  }
}

/// A map's run, whatever its types, as an exporter reads it.
private protocol ExportedMapRun {
  var exported: ExportedMap { get }
  func visit<Visitor: ExportedChartVisitor>(_ visitor: Visitor) -> Visitor.Result
  func elements(of context: any Sendable) throws -> [any Sendable]
  func collect(into context: inout any Sendable, outputs: [any Sendable]) throws
}

/// A value of the wrong type handed to a map's exported run: a payload for another chart.
private struct ExportedMapTypeMismatch: Error, CustomStringConvertible {
  var expected: String
  var description: String { "The map's run was given a value that is not a \(expected)." }
}

extension MapRun: ExportedMapRun {
  fileprivate var exported: ExportedMap {
    ExportedMap(
      maxConcurrency: declaredOptions.maxConcurrency, toleratedFailures: toleratedFailures,
      hasStepLimit: stepLimitError != nil || interpreter.stepLimit != .max)
  }

  fileprivate func visit<Visitor: ExportedChartVisitor>(_ visitor: Visitor) -> Visitor.Result {
    visitor.visit(chart)
  }

  fileprivate func elements(of context: any Sendable) throws -> [any Sendable] {
    guard let context = context as? Context else {
      throw ExportedMapTypeMismatch(expected: "\(Context.self)")
    }
    return try elements(context)
  }

  fileprivate func collect(into context: inout any Sendable, outputs: [any Sendable]) throws {
    guard var typed = context as? Context else {
      throw ExportedMapTypeMismatch(expected: "\(Context.self)")
    }
    let elements = try outputs.map { output -> Element in
      guard let element = output as? Element else {
        throw ExportedMapTypeMismatch(expected: "\(Element.self)")
      }
      return element
    }
    try collect(
      &typed,
      MapResults(
        outputs: elements, indices: Array(elements.indices), failures: [],
        elementCount: elements.count))
    context = typed
  }
}

extension Flowchart {
  /// Whether `state` is a subflow whose chart runs without a step limit of its own: one an
  /// exporter may write inline.
  package func isExportableSubflow(_ state: StateID) -> Bool {
    guard let subflow = graph.records[state.index].attachment as? any ExportedSubflowRun else {
      return false
    }
    return !subflow.hasStepLimit
  }

  /// Visits the chart the subflow `state` runs; `nil` when `state` is not a subflow.
  package func visitSubflowChart<Visitor: ExportedChartVisitor>(
    of state: StateID, _ visitor: Visitor
  ) -> Visitor.Result? {
    (graph.records[state.index].attachment as? any ExportedSubflowRun)?.visit(visitor)
  }

  /// The inner context the subflow `state` starts its chart with, from `context`.
  package func subflowEnter(of state: StateID, context: Context) throws -> any Sendable {
    try subflowRun(of: state).enter(context)
  }

  /// Writes the final context of the subflow `state`'s chart back into `context`, as the
  /// subflow does when its chart ended at the state `finalState` (by index in that chart)
  /// with `decision` (its text), and says which exit the subflow takes, as its code does.
  package func subflowLeave(
    of state: StateID, context: inout Context, inner: any Sendable, finalState: Int,
    decision: String
  ) throws -> ExportedStep {
    let subflow = try subflowRun(of: state)
    var whole: any Sendable = context
    let finalName = try subflow.leave(&whole, inner: inner, finalState: finalState)
    if let left = whole as? Context { context = left }
    let ended: Decision =
      switch decision {
      case "yes": .yes
      case "no": .no
      default: .done
      }
    // The exits as the subflow's code takes them (a final subflow is not written inline).
    let exits = self[state].exits
    func exit(_ label: Exit.Label) -> ExportedStep {
      .exit(exits.firstIndex { $0.label == label } ?? 0)
    }
    if exits.contains(where: { $0.label == .yes }) {
      // A subflow used as a condition.
      guard ended == .yes || ended == .no else {
        throw SubflowWithoutYesOrNo(
          finalState: finalName, kind: subflow.kind(ofState: finalState), decision: ended)
      }
      return exit(ended == .yes ? .yes : .no)
    }
    if exits.contains(where: { $0.label.key != nil }) {
      if let index = exits.firstIndex(where: { $0.label.key == finalName }) {
        return .exit(index)
      }
      if exits.contains(where: { $0.label == .default }) { return exit(.default) }
      throw UnmatchedKey(key: finalName)
    }
    return exit(.next)
  }

  private func subflowRun(of state: StateID) throws -> any ExportedSubflowRun {
    guard let subflow = graph.records[state.index].attachment as? any ExportedSubflowRun else {
      throw ScriptProblem(
        stateName: graph.records[state.index].name,
        message: "\(DisplayText.quoted(name: graph.records[state.index].name)) is not a subflow.")
    }
    return subflow
  }
}

/// A subflow's run, whatever its types, as an exporter reads it.
private protocol ExportedSubflowRun {
  var hasStepLimit: Bool { get }
  func visit<Visitor: ExportedChartVisitor>(_ visitor: Visitor) -> Visitor.Result
  func enter(_ context: any Sendable) throws -> any Sendable
  /// Writes `inner` back; returns the name of the final state.
  func leave(_ context: inout any Sendable, inner: any Sendable, finalState: Int) throws -> String
  func kind(ofState index: Int) -> StateKind
}

extension SubflowRun: ExportedSubflowRun {
  fileprivate var hasStepLimit: Bool { stepLimit != nil }

  fileprivate func visit<Visitor: ExportedChartVisitor>(_ visitor: Visitor) -> Visitor.Result {
    visitor.visit(chart)
  }

  fileprivate func enter(_ context: any Sendable) throws -> any Sendable {
    guard let outer = context as? Outer else {
      throw ExportedMapTypeMismatch(expected: "\(Outer.self)")
    }
    return try mapping.enter(outer)
  }

  fileprivate func leave(
    _ context: inout any Sendable, inner: any Sendable, finalState: Int
  ) throws -> String {
    guard var outer = context as? Outer else {
      throw ExportedMapTypeMismatch(expected: "\(Outer.self)")
    }
    guard let inner = inner as? Inner else {
      throw ExportedMapTypeMismatch(expected: "\(Inner.self)")
    }
    guard chart.graph.records.indices.contains(finalState) else {
      throw ExportedMapTypeMismatch(expected: "final state of the subflow's chart")
    }
    try mapping.leave(&outer, inner)
    context = outer
    return chart.graph.records[finalState].name
  }

  fileprivate func kind(ofState index: Int) -> StateKind { chart.graph.records[index].kind }
}
