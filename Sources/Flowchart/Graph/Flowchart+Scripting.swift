// Scripting: a copy of a compiled chart in which chosen states run other code.
//
// Tools of this package (the FlowchartTesting library, the command-line tool) use it to
// force decisions and to observe which exits runs take. The copy has its own nodes, pointing
// at new boxes, and shares everything else with the original; the ordinary interpreter runs
// it, so a scripted run has the ordinary run semantics and result, and charts that nobody
// scripts pay nothing. Forcing is here; observing, in `Flowchart+Observing.swift`.

/// One forced choice of a state: a decision, the exit to take, or a failure.
package enum ForcedChoice: Sendable, Hashable {
  /// ``Decision/done`` for an action, ``Decision/yes`` or ``Decision/no`` for a condition,
  /// ``Decision/key(_:)`` for a multiple condition. A key leads to the exit whose text (as
  /// the printed tree shows it) is the key's text, or to the default exit when no exit has
  /// it.
  case decision(Decision)
  /// The exit of a non-final state with this label: `next` for an action, `yes` or `no`
  /// for a condition, a key's text or `default` for a multiple condition.
  case exit(Exit.Label)
  /// The attempt fails, without running the state's code: the state's modifiers (retry,
  /// catch routes) take the failure as they would take a thrown error.
  case failure(ForcedFailure)
}

/// A failure a script forces on one attempt of a state's code.
package enum ForcedFailure: Sendable, Hashable {
  /// The attempt throws a ``ScriptedFailure``: the state's retry, if any, retries it, and
  /// once the retries have run out the catch route at position `catchRoute` (the first when
  /// `nil`) takes it, whatever error types the retry and the routes are limited to; a state
  /// with no catch route fails the run.
  case error(catchRoute: Int?)
  /// The attempt times out at once, without waiting: it throws the state's
  /// ``StateTimeoutError``, which the state's retry and catch routes take as they would a
  /// real timeout (their error types apply). The state must have a timeout.
  case timeout
}

/// The error a failure forced by a script throws (``ForcedFailure/error(catchRoute:)``): a
/// catch route's handler receives it, and a run error tells it as its cause.
package struct ScriptedFailure: SelfExplainingError, Sendable {
  /// The name of the state whose attempt failed.
  package let stateName: String
  /// The position of the catch route the failure is for; `nil` for the first.
  package let catchRoute: Int?

  /// `its code failed, as the script forced it to`, a clause for a run error.
  package var description: String {
    "its code failed, as the script forced it to (a failure of \(DisplayText.quoted(name: stateName)) made by the script, not by its code)"
  }
}

/// The choices forced on one state of a scripted chart (see
/// ``Flowchart/scripted(forcing:observer:)``).
package struct ForcedDecision: Sendable {
  /// The choices, one per attempt of the state's code (one per visit, for a state without
  /// retries) in the order the runs of the scripted chart make them; a single choice is
  /// taken at every visit.
  package var choices: [ForcedChoice]
  /// Whether the state's own code still runs, for what it does to the context, before its
  /// decision is replaced; when `false`, the code does not run at all.
  package var runsCode: Bool
  /// Code that runs in place of the state's own, for what it does to the context, before
  /// the forced decision is taken: a `@Sendable (inout Context) throws -> Void` or a
  /// `@Sendable (inout Context) async throws -> Void` over the chart's context. It wins
  /// over ``runsCode``.
  package var replacement: (any Sendable)?

  /// Forces `choices`, one per visit, running the state's code first only when `runsCode`
  /// is `true`.
  package init(choices: [ForcedChoice], runsCode: Bool = false, replacement: (any Sendable)? = nil)
  {
    self.choices = choices
    self.runsCode = runsCode
    self.replacement = replacement
  }

  /// Forces `decisions`, one per visit, running the state's code first only when
  /// `runsCode` is `true`.
  package init(_ decisions: [Decision], runsCode: Bool = false) {
    self.init(choices: decisions.map(ForcedChoice.decision), runsCode: runsCode)
  }
}

/// What a script may force on a state with modifiers, for routes: the ways its attempts can
/// fail and where each leads.
package struct ScriptableModifiers: Sendable {
  /// The state's timeout, if any.
  package let timeout: Duration?
  /// How many times a failed attempt is retried; 0 without a retry.
  package let retries: Int
  /// Whether a timed-out attempt is retried (the retry accepts a ``StateTimeoutError``).
  package let retriesTimeouts: Bool
  /// Where each catch route leads, in declaration order.
  package let catchTargets: [StateID]
  /// Whether each catch route, in declaration order, takes only timeouts (it is limited to
  /// ``StateTimeoutError``): only a timeout leads there.
  package let catchesOnlyTimeouts: [Bool]
  /// The position of the first catch route that takes a ``StateTimeoutError``; `nil` when
  /// none does (or there is no timeout).
  package let timeoutCatch: Int?
}

/// What an observer of a scripted chart is told about one state of a run.
package enum ObservedStep: Sendable, Hashable {
  /// The state's code is about to run. A dispatch has no code, so it reports no entry:
  /// its branches' first states report theirs.
  case entered
  /// The state took its exit at this position in its ``StateInfo/exits``. A dispatch
  /// reports its `next` exit after each of its branches' contexts is folded back.
  case tookExit(Int)
  /// The state, a final one, ended its flow with this decision.
  case ended(Decision)
}

/// Why a chart cannot be scripted as asked: a sentence that names the state, says what is
/// wrong and what to do.
package struct ScriptProblem: Error, Sendable, CustomStringConvertible {
  /// The name the script used, or the name of the state it is about.
  package let stateName: String
  /// The problem in full.
  package let message: String

  /// The message.
  package var description: String { message }
}

extension Flowchart {
  /// The one state named `name`, for a script.
  ///
  /// - Throws: A ``ScriptProblem`` when no state has the name (suggesting a close name, if
  ///   one is declared) or several states have it.
  package func scriptedState(named name: String) throws(ScriptProblem) -> StateID {
    switch graph.names.match(name) {
    case .one(let state):
      return StateID(state)
    case .several(let states):
      let places = states.map { "\(graph.records[Int($0)].location)" }
      throw ScriptProblem(
        stateName: name,
        message:
          "\(counted(states.count, "state")) are named \(DisplayText.quoted(name: name)) (declared at \(places.joined(separator: ", "))), so a script cannot tell which one it means. Rename them so that each name is unique."
      )
    case .none:
      var suggester = Suggester()
      let close = suggester.closestName(to: name, in: graph.records.lazy.map(\.name))
      let hint = close.map { " (did you mean \(DisplayText.quoted(name: $0.name))?)" } ?? ""
      throw ScriptProblem(
        stateName: name,
        message:
          "No state is named \(DisplayText.quoted(name: name)). Use the name of one of the chart's \(counted(graph.records.count, "state"))\(hint)."
      )
    }
  }

  /// A copy of the chart whose states in `forced` decide as told, and whose every state
  /// reports to `observer`, if any, what it did.
  ///
  /// The copy shares the original's declarations and structure; only its nodes are new.
  /// A state forced without its code whose code is asynchronous becomes synchronous, so a
  /// chart whose asynchronous states are all forced runs with
  /// ``runSynchronously(with:stepLimit:)``; an asynchronous replacement makes a state
  /// asynchronous. A forced waiting state takes no value and never parks. A forced state
  /// keeps its retry and catch routes, which take its forced failures; its retry does not
  /// wait between attempts, and its timeout goes unless its own code (or a replacement)
  /// still runs.
  ///
  /// - Throws: A ``ScriptProblem`` when a state cannot make the decision forced on it (a
  ///   yes or no for an action, a key no exit has when there is no default, any decision
  ///   for a dispatch), when a forced failure does not fit it (a timeout without a timeout,
  ///   a catch route it does not have), when a replacement is not code over the chart's
  ///   context, or when an ID is not one of the chart's.
  /// - Complexity: O(*n*) in the number of states.
  package func scripted(
    forcing forced: [StateID: ForcedDecision],
    observer: (@Sendable (StateID, ObservedStep) -> Void)? = nil
  ) throws(ScriptProblem) -> Flowchart<Context> {
    let buffer = NodeBuffer(capacity: graph.records.count)
    for node in graph.nodes { buffer.append(node) }
    var boxes = graph.codeBoxes
    func replace(_ index: Int, with kind: Node.Kind, _ box: any AnyObject & Sendable) {
      buffer[index].kind = kind
      buffer[index].code = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
      boxes.append(box)
    }
    for (id, force) in forced.sorted(by: { $0.key < $1.key }) {
      guard graph.records.indices.contains(id.index) else {
        throw ScriptProblem(
          stateName: "\(id)",
          message:
            "A script cannot force \(id): the chart has \(counted(graph.records.count, "state")). Pass an ID from this chart, such as one `state(named:)` returns."
        )
      }
      let node = graph.nodes[id.index]
      if node.kind == .modified {
        // The state's modifiers stay, so that forced failures are retried and caught; only
        // what the forced code cannot need goes (see `scriptedModifiers`).
        let modified = ModifiedCode.of(node)
        var inner = modified.inner
        let (kind, box) = try forcedCode(
          for: id.index, node: inner, force, modifiers: modified.modifiers, observer: observer)
        inner.kind = kind
        inner.code = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
        boxes.append(box)
        let modifiers = scriptedModifiers(
          modified.modifiers, keepsTimeout: force.runsCode || force.replacement != nil)
        replace(
          id.index, with: .modified,
          ModifiedCode(
            inner: inner, modifiers: modifiers, catchTargets: modified.catchTargets))
      } else {
        let (kind, box) = try forcedCode(
          for: id.index, node: node, force, modifiers: nil, observer: observer)
        replace(id.index, with: kind, box)
      }
      // A forced waiting state takes no value from outside, so it never parks, unless its
      // own code still runs.
      buffer[id.index].waitsForInput = node.waitsForInput && force.runsCode
    }
    var dispatches = graph.dispatches
    if let observer {
      for index in graph.records.indices where forced[StateID(index)] == nil {
        let node = buffer[index]
        if node.kind == .dispatch {
          let plan = Int(node.alternative)
          dispatches[plan].merge = observedMerge(of: index, dispatches[plan], observer)
        } else if node.kind == .modified {
          // Observe each attempt of the state's own code; its modifiers stay.
          let modified = ModifiedCode.of(node)
          var inner = modified.inner
          let (kind, box) = observedCode(for: index, node: inner, observer)
          inner.kind = kind
          inner.code = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
          boxes.append(box)
          replace(
            index, with: .modified,
            ModifiedCode(
              inner: inner, modifiers: modified.modifiers, catchTargets: modified.catchTargets))
        } else {
          let (kind, box) = observedCode(for: index, node: node, observer)
          replace(index, with: kind, box)
        }
      }
    }
    // Forcing changes which states are asynchronous both ways: forced code without the
    // state's own is synchronous, and an asynchronous replacement makes a state asynchronous.
    var asynchronous: [Int32] = []
    for index in graph.records.indices {
      let node = buffer[index]
      let isAsynchronous: Bool
      if node.kind == .modified {
        // A modified state is asynchronous when its code is, or when its modifiers wait.
        let modified = ModifiedCode.of(node)
        isAsynchronous = modified.inner.kind.suspends || modified.modifiers.waits
      } else {
        isAsynchronous = node.kind.isAsynchronous
      }
      if isAsynchronous { asynchronous.append(Int32(index)) }
    }
    return Flowchart(
      graph: Graph(
        CompiledChart(
          declarations: graph.declarations, nodes: buffer, codeBoxes: boxes,
          dispatches: dispatches, callSites: graph.callSites, records: graph.records,
          exits: graph.exits,
          keyLabels: graph.keyLabels, start: graph.start, entryPoints: graph.entryPoints,
          asynchronousStates: asynchronous, outcomes: graph.outcomes)))
  }

  // MARK: - Forcing

  /// The modifiers of a forced state, as the scripted chart runs them: a ``ScriptedFailure``
  /// passes its retry's filter, and only the catch route it is for takes it (other errors
  /// meet the filters as written); the retry does not wait between attempts, since forced
  /// attempts fail at once; and the timeout goes when the state's own code does not run
  /// (forced code returns at once, and a forced timeout throws its error itself).
  private func scriptedModifiers(_ modifiers: StateModifiers, keepsTimeout: Bool) -> StateModifiers
  {
    var values = ModifierValues(modifiers)
    if !keepsTimeout { values.timeout = nil }
    if var retry = values.retry {
      let filter = retry.filter
      retry.filter = { error in error is ScriptedFailure || filter(error) }
      retry.backoff = .immediate
      values.retry = retry
    }
    values.catches = values.catches.enumerated().map { position, route in
      var route = route
      let filter = route.filter
      route.filter = { error in
        guard let forced = error as? ScriptedFailure else { return filter(error) }
        return (forced.catchRoute ?? 0) == position
      }
      return route
    }
    return StateModifiers(values)
  }

  /// What a script may force on the modified state `state`: its timeout, retries and catch
  /// routes; `nil` for a state without modifiers.
  package func scriptableModifiers(of state: StateID) -> ScriptableModifiers? {
    guard graph.records.indices.contains(state.index) else { return nil }
    let node = graph.nodes[state.index]
    guard node.kind == .modified else { return nil }
    let code = ModifiedCode.of(node)
    let modifiers = code.modifiers
    let timeoutError = modifiers.timeout.map {
      StateTimeoutError(stateName: graph.records[state.index].name, limit: $0)
    }
    return ScriptableModifiers(
      timeout: modifiers.timeout, retries: modifiers.retry?.count ?? 0,
      retriesTimeouts: timeoutError.map { error in
        modifiers.retry.map { $0.count > 0 && $0.filter(error) } ?? false
      } ?? false,
      catchTargets: code.catchTargets.map(StateID.init),
      catchesOnlyTimeouts: modifiers.catches.map {
        $0.errorType == String(describing: StateTimeoutError.self)
      },
      timeoutCatch: timeoutError.flatMap { error in
        modifiers.catches.firstIndex(where: { $0.filter(error) })
      })
  }

  /// The kind and box that replace the code of the state `index`, whose node (without its
  /// modifiers) is `node`, to force `force`, reporting to `observer` if any. `modifiers` are
  /// the state's, if it has any: a forced failure must fit them.
  private func forcedCode(
    for index: Int, node: Node, _ force: ForcedDecision, modifiers: StateModifiers?,
    observer: (@Sendable (StateID, ObservedStep) -> Void)?
  ) throws(ScriptProblem) -> (Node.Kind, any AnyObject & Sendable) {
    let record = graph.records[index]
    let id = StateID(index)
    let isFinal = node.isFinal
    guard !force.choices.isEmpty else {
      throw ScriptProblem(
        stateName: record.name,
        message:
          "A script forces no decision on \(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location)). Give it at least one decision, or leave it out of the script."
      )
    }
    // The error each failing choice throws, by the choice's position.
    var failures: [(any Error)?] = []
    for choice in force.choices {
      guard case .failure(let failure) = choice else {
        failures.append(nil)
        continue
      }
      failures.append(try forcedError(failure, at: index, modifiers: modifiers))
    }
    let pick = DecisionPicker(
      count: force.choices.count, stateName: record.name, location: record.location,
      failures: failures)
    let observe = observer ?? { _, _ in }
    let effect = try forcedEffect(for: index, node: node, force)
    switch node.kind {
    case .pass, .action, .asyncAction, .callAction:
      for choice in force.choices
      where !choice.isFailure && choice != .decision(.done) && (isFinal || choice != .exit(.next)) {
        throw cannotDecide(index, choice, "only done")
      }
      let step: ObservedStep = isFinal ? .ended(.done) : .tookExit(0)
      switch effect {
      case .asynchronous(let run):
        return (
          .asyncAction,
          AsyncActionBox<Context> { context in
            observe(id, .entered)
            _ = try pick.next()
            try await run(&context)
            observe(id, step)
          }
        )
      case .synchronous(let run):
        return (
          .action,
          ActionBox<Context> { context in
            observe(id, .entered)
            _ = try pick.next()
            try run?(&context)
            observe(id, step)
          }
        )
      }
    case .condition, .asyncCondition, .callCondition:
      var answers: [Bool] = []
      for choice in force.choices {
        switch choice {
        case .decision(.yes): answers.append(true)
        case .decision(.no): answers.append(false)
        case .exit(.yes) where !isFinal: answers.append(true)
        case .exit(.no) where !isFinal: answers.append(false)
        case .failure: answers.append(false)
        case .decision, .exit: throw cannotDecide(index, choice, "yes or no")
        }
      }
      switch effect {
      case .asynchronous(let run):
        return (
          .asyncCondition,
          AsyncConditionBox<Context> { [answers] context in
            observe(id, .entered)
            let answer = answers[try pick.next()]
            try await run(&context)
            observe(id, Self.step(answer, isFinal: isFinal))
            return answer
          }
        )
      case .synchronous(let run):
        return (
          .condition,
          ConditionBox<Context> { [answers] context in
            observe(id, .entered)
            let answer = answers[try pick.next()]
            try run?(&context)
            observe(id, Self.step(answer, isFinal: isFinal))
            return answer
          }
        )
      }
    case .select, .asyncSelect:
      var positions: [Int] = []
      let labels = graph.exits(of: index).map(\.label)
      for choice in force.choices {
        let position: Int?
        switch choice {
        case .decision(let decision):
          guard let key = decision.key else { throw cannotDecide(index, choice, "a key") }
          let text = DisplayText.key(key)
          position = labels.firstIndex(of: .key(text)) ?? labels.firstIndex(of: .default)
        case .exit(let label):
          position = labels.firstIndex(of: label)
        case .failure:
          position = 0
        }
        guard let position else { throw cannotDecide(index, choice, "a key of its exits") }
        positions.append(position)
      }
      let targets = graph.storedExits(of: index).map(\.target)
      switch effect {
      case .asynchronous(let run):
        return (
          .asyncSelect,
          AsyncSelectBox<Context> { [positions] context in
            observe(id, .entered)
            let position = positions[try pick.next()]
            try await run(&context)
            observe(id, .tookExit(position))
            return targets[position]
          }
        )
      case .synchronous(let run):
        return (
          .select,
          SelectBox<Context> { [positions] context in
            observe(id, .entered)
            let position = positions[try pick.next()]
            try run?(&context)
            observe(id, .tookExit(position))
            return targets[position]
          }
        )
      }
    case .decideKey, .asyncDecideKey:
      var keys: [any Hashable & Sendable] = []
      for choice in force.choices {
        if choice.isFailure {
          keys.append(0)
          continue
        }
        guard case .decision(let decision) = choice, let key = decision.key else {
          throw cannotDecide(index, choice, "a key")
        }
        keys.append(key)
      }
      switch effect {
      case .asynchronous(let run):
        return (
          .asyncDecideKey,
          AsyncDecideKeyBox<Context> { [keys] context in
            observe(id, .entered)
            let key = keys[try pick.next()]
            try await run(&context)
            observe(id, .ended(.key(key)))
            return key
          }
        )
      case .synchronous(let run):
        return (
          .decideKey,
          DecideKeyBox<Context> { [keys] context in
            observe(id, .entered)
            let key = keys[try pick.next()]
            try run?(&context)
            observe(id, .ended(.key(key)))
            return key
          }
        )
      }
    case .modified:
      preconditionFailure("a modified node was replaced by the node it holds")
    case .dispatch:
      throw ScriptProblem(
        stateName: record.name,
        message:
          "A script cannot force a decision on dispatch \(DisplayText.quoted(name: record.name)) (\(record.location)): a dispatch decides nothing, it runs its branches. Force the states of its branches instead."
      )
    }
  }

  /// The error an attempt of the state `index` throws for `failure`.
  private func forcedError(
    _ failure: ForcedFailure, at index: Int, modifiers: StateModifiers?
  ) throws(ScriptProblem) -> any Error {
    let record = graph.records[index]
    let state = "\(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location))"
    switch failure {
    case .timeout:
      guard let limit = modifiers?.timeout else {
        throw ScriptProblem(
          stateName: record.name,
          message:
            "A script cannot make \(state) time out: it has no timeout. Give the state a .timeout(_:), or force a failure instead."
        )
      }
      return StateTimeoutError(stateName: record.name, limit: limit)
    case .error(let route):
      let count = modifiers?.catches.count ?? 0
      if let route, !(0..<count).contains(route) {
        throw ScriptProblem(
          stateName: record.name,
          message:
            "A script cannot send a failure of \(state) to its catch route \(route + 1): it has \(counted(count, "catch route")). Name one of those, or leave the route out."
        )
      }
      return ScriptedFailure(stateName: record.name, catchRoute: route)
    }
  }

  /// What a forced state runs before it decides: a replacement, its own code, or nothing.
  private func forcedEffect(
    for index: Int, node: Node, _ force: ForcedDecision
  ) throws(ScriptProblem) -> ForcedEffect<Context> {
    if let replacement = force.replacement {
      if let run = replacement as? @Sendable (inout Context) throws -> Void {
        return .synchronous(run)
      }
      if let run = replacement as? @Sendable (inout Context) async throws -> Void {
        return .asynchronous(run)
      }
      let record = graph.records[index]
      throw ScriptProblem(
        stateName: record.name,
        message:
          "A script replaces the code of \(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location)) with a closure of type \(type(of: replacement)), which is not code over the chart's context, \(Context.self). Give a closure (inout \(Context.self)) throws -> Void."
      )
    }
    guard force.runsCode else { return .synchronous(nil) }
    if node.kind == .select || node.kind == .asyncSelect {
      // The state's own decision runs for its effects; a key without an exit is no error
      // there, since the forced key replaces it.
      guard let selector = exitSelector(of: index) else { return .synchronous(nil) }
      if selector.node.kind.suspends {
        return .asynchronous { context in
          do { _ = try await selector.call(&context) } catch is UnmatchedKey {}
        }
      }
      return .synchronous { context in
        do { _ = try selector.callSynchronously(&context) } catch is UnmatchedKey {}
      }
    }
    // The state's own code, called through its node's call sites.
    let original = OriginalCode(node: node, owner: graph)
    if node.kind.suspends {
      return .asynchronous { context in _ = try await original.call(&context) }
    }
    return .synchronous { context in _ = try original.callSynchronously(&context) }
  }

  /// The problem of forcing `choice` on the state `index`, which can only decide
  /// `allowed`.
  private func cannotDecide(
    _ index: Int, _ choice: ForcedChoice, _ allowed: String
  ) -> ScriptProblem {
    let record = graph.records[index]
    var choices = ""
    let labels = graph.exits(of: index).map(\.label).filter { $0.key != nil || $0 == .default }
    if !labels.isEmpty {
      choices = " (its exits: \(labels.map { "\($0)" }.joined(separator: ", ")))"
    }
    let forced: String
    let ending: String
    switch choice {
    case .decision(let decision):
      forced = "\(decision)"
      ending = ""
    case .exit(let label):
      forced = "the exit \(label)"
      ending = record.isFinal ? " (a final state takes no exit: force its decision)" : ""
    case .failure:
      // Every state can fail: a failure is never the choice a state cannot make.
      forced = "a failure"
      ending = ""
    }
    return ScriptProblem(
      stateName: record.name,
      message:
        "A script cannot force \(forced) on \(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location)): it can decide \(allowed)\(choices)\(ending). Force one of those instead."
    )
  }
}

/// Which of a forced state's choices each attempt takes: the only one at every attempt, or
/// the next in turn, failing once they have all been taken. A choice that is a failure
/// throws its error.
private final class DecisionPicker: Sendable {
  private let count: Int
  private let stateName: String
  private let location: SourceLocation
  /// The error each choice throws, by position: `nil` for a decision.
  private let failures: [(any Error)?]
  private let visits = AtomicWord<Int>(0)

  init(count: Int, stateName: String, location: SourceLocation, failures: [(any Error)?]) {
    self.count = count
    self.stateName = stateName
    self.location = location
    self.failures = failures
  }

  /// The position of the decision this attempt takes.
  ///
  /// - Throws: A ``ScriptProblem`` when every decision has been taken; the choice's error
  ///   when it is a failure.
  func next() throws -> Int {
    guard count > 1 else {
      if let failure = failures[0] { throw failure }
      return 0
    }
    let visit = visits.wrappingAdd(1, ordering: .relaxed).oldValue
    if visit < count, let failure = failures[visit] { throw failure }
    guard visit < count else {
      throw ScriptProblem(
        stateName: stateName,
        message:
          "The script gives \(DisplayText.quoted(name: stateName)) (\(location)) \(counted(count, "decision")), one per visit, but the runs of the scripted chart entered it \(counted(visit + 1, "time")). Give it a decision for every visit, or script a new chart for each run."
      )
    }
    return visit
  }
}

/// A state's code as a node calls it, for a box of a scripted chart that wraps it: the box
/// calls the code through the node's call sites (``Node/callSynchronously(_:)`` for a kind
/// that does not suspend, so that a scripted synchronous chart still runs synchronously,
/// ``Node/call(_:)`` otherwise), as the loops do, and never calls a box's closure itself.
///
/// `@unchecked Sendable` because ``node`` holds an unmanaged pointer to the code's box: both
/// properties are `let`s set in `init`, the box is an immutable `Sendable` class, and
/// ``owner`` keeps it alive for as long as this value lives (the original chart's graph,
/// which owns every box its nodes point to, or the box itself, for an exit selector).
struct OriginalCode: @unchecked Sendable {
  /// The node whose code the wrapper calls.
  let node: Node
  /// What keeps the box ``node`` points to alive.
  let owner: any AnyObject & Sendable

  /// Calls the code of a node whose kind does not suspend.
  func callSynchronously<Context: Sendable>(_ context: inout Context) throws -> CodeResult {
    try node.callSynchronously(&context)
  }

  /// Calls the code of the node, synchronous or asynchronous.
  func call<Context: Sendable>(_ context: inout Context) async throws -> CodeResult {
    try await node.call(&context)
  }
}

/// What a forced state runs before it decides: synchronous code (none when `nil`), or
/// asynchronous code, which makes the forced state asynchronous.
private enum ForcedEffect<Context: Sendable> {
  case synchronous((@Sendable (inout Context) throws -> Void)?)
  case asynchronous(@Sendable (inout Context) async throws -> Void)
}

extension ForcedChoice {
  /// Whether the choice is a failure.
  var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}

extension CodeResult {
  /// A condition's answer.
  ///
  /// - Precondition: the code is a condition's.
  var answer: Bool {
    switch self {
    case .outcome(.yes): true
    case .outcome(.no): false
    case .outcome(.next), .outcome(.selected), .key:
      preconditionFailure("a condition answers yes or no")
    }
  }

  /// What a non-final multiple condition selected: a state, or the position of an exit for
  /// an exit selector (see ``Flowchart/exitSelector(of:)``).
  ///
  /// - Precondition: the code is a non-final multiple condition's.
  var selected: Int32 {
    guard case .outcome(.selected(let selected)) = self else {
      preconditionFailure("a non-final multiple condition selects")
    }
    return selected
  }

  /// What a final multiple condition decided.
  ///
  /// - Precondition: the code is a final multiple condition's.
  var decision: Decision {
    guard case .key(let decision) = self else {
      preconditionFailure("a final multiple condition decides a key")
    }
    return decision
  }
}

extension Decision {
  /// The key of a final multiple condition's decision.
  ///
  /// - Precondition: the decision is a key.
  var decidedKey: any Hashable & Sendable {
    guard let key else { preconditionFailure("a final multiple condition decides a key") }
    return key
  }
}
