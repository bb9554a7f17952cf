// Scripting: a copy of a compiled chart in which chosen states run other code.
//
// Tools of this package (the FlowchartTesting library, the command-line tool) use it to
// force decisions and to observe which exits runs take. The copy has its own nodes, pointing
// at new boxes, and shares everything else with the original; the ordinary interpreter runs
// it, so a scripted run has the ordinary run semantics and result, and charts that nobody
// scripts pay nothing. Forcing is here; observing, in `Flowchart+Observing.swift`.

/// One forced choice of a state: a decision, or the exit to take.
package enum ForcedChoice: Sendable, Hashable {
  /// ``Decision/done`` for an action, ``Decision/yes`` or ``Decision/no`` for a condition,
  /// ``Decision/key(_:)`` for a multiple condition. A key leads to the exit whose text (as
  /// the printed tree shows it) is the key's text, or to the default exit when no exit has
  /// it.
  case decision(Decision)
  /// The exit of a non-final state with this label: `next` for an action, `yes` or `no`
  /// for a condition, a key's text or `default` for a multiple condition.
  case exit(Exit.Label)
}

/// The choices forced on one state of a scripted chart (see
/// ``Flowchart/scripted(forcing:observer:)``).
package struct ForcedDecision: Sendable {
  /// The choices, one per visit in the order the runs of the scripted chart enter the
  /// state; a single choice is taken at every visit.
  package var choices: [ForcedChoice]
  /// Whether the state's own code still runs, for what it does to the context, before its
  /// decision is replaced; when `false`, the code does not run at all.
  package var runsCode: Bool

  /// Forces `choices`, one per visit, running the state's code first only when `runsCode`
  /// is `true`.
  package init(choices: [ForcedChoice], runsCode: Bool = false) {
    self.choices = choices
    self.runsCode = runsCode
  }

  /// Forces `decisions`, one per visit, running the state's code first only when
  /// `runsCode` is `true`.
  package init(_ decisions: [Decision], runsCode: Bool = false) {
    self.init(choices: decisions.map(ForcedChoice.decision), runsCode: runsCode)
  }
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
  /// ``runSynchronously(with:stepLimit:)``.
  ///
  /// - Throws: A ``ScriptProblem`` when a state cannot make the decision forced on it (a
  ///   yes or no for an action, a key no exit has when there is no default, any decision
  ///   for a dispatch) or an ID is not one of the chart's.
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
      let (kind, box) = try forcedCode(for: id.index, force, observer: observer)
      replace(id.index, with: kind, box)
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
    let asynchronous = graph.asynchronousStates.filter { buffer[Int($0)].kind.suspends }
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

  /// The kind and box that replace the state `index`'s code to force `force`, reporting to
  /// `observer` if any.
  private func forcedCode(
    for index: Int, _ force: ForcedDecision,
    observer: (@Sendable (StateID, ObservedStep) -> Void)?
  ) throws(ScriptProblem) -> (Node.Kind, any AnyObject & Sendable) {
    // A forced state's modifiers are dropped with its code: it decides what it is told.
    var node = graph.nodes[index]
    if node.kind == .modified { node = ModifiedCode.of(node).inner }
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
    let pick = DecisionPicker(
      count: force.choices.count, stateName: record.name, location: record.location)
    let observe = observer ?? { _, _ in }
    // The state's own code, when it still runs, called through its node's call sites.
    let original = force.runsCode ? OriginalCode(node: node, owner: graph) : nil
    switch node.kind {
    case .pass, .action, .asyncAction, .callAction:
      for choice in force.choices
      where choice != .decision(.done) && (isFinal || choice != .exit(.next)) {
        throw cannotDecide(index, choice, "only done")
      }
      let step: ObservedStep = isFinal ? .ended(.done) : .tookExit(0)
      if let original, node.kind.suspends {
        return (
          .asyncAction,
          AsyncActionBox<Context> { context in
            observe(id, .entered)
            _ = try await original.call(&context)
            _ = try pick.next()
            observe(id, step)
          }
        )
      }
      return (
        .action,
        ActionBox<Context> { context in
          observe(id, .entered)
          _ = try original?.callSynchronously(&context)
          _ = try pick.next()
          observe(id, step)
        }
      )
    case .condition, .asyncCondition, .callCondition:
      var answers: [Bool] = []
      for choice in force.choices {
        switch choice {
        case .decision(.yes): answers.append(true)
        case .decision(.no): answers.append(false)
        case .exit(.yes) where !isFinal: answers.append(true)
        case .exit(.no) where !isFinal: answers.append(false)
        case .decision, .exit: throw cannotDecide(index, choice, "yes or no")
        }
      }
      if let original, node.kind.suspends {
        return (
          .asyncCondition,
          AsyncConditionBox<Context> { [answers] context in
            observe(id, .entered)
            _ = try await original.call(&context)
            let answer = answers[try pick.next()]
            observe(id, Self.step(answer, isFinal: isFinal))
            return answer
          }
        )
      }
      return (
        .condition,
        ConditionBox<Context> { [answers] context in
          observe(id, .entered)
          _ = try original?.callSynchronously(&context)
          let answer = answers[try pick.next()]
          observe(id, Self.step(answer, isFinal: isFinal))
          return answer
        }
      )
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
        }
        guard let position else { throw cannotDecide(index, choice, "a key of its exits") }
        positions.append(position)
      }
      let targets = graph.storedExits(of: index).map(\.target)
      // The state's own decision runs for its effects; a key without an exit is no error
      // there, since the forced key replaces it.
      let selector = original != nil ? exitSelector(of: index) : nil
      if let selector, selector.node.kind.suspends {
        return (
          .asyncSelect,
          AsyncSelectBox<Context> { [positions] context in
            observe(id, .entered)
            do { _ = try await selector.call(&context) } catch is UnmatchedKey {}
            let position = positions[try pick.next()]
            observe(id, .tookExit(position))
            return targets[position]
          }
        )
      }
      return (
        .select,
        SelectBox<Context> { [positions] context in
          observe(id, .entered)
          do { _ = try selector?.callSynchronously(&context) } catch is UnmatchedKey {}
          let position = positions[try pick.next()]
          observe(id, .tookExit(position))
          return targets[position]
        }
      )
    case .decideKey, .asyncDecideKey:
      var keys: [any Hashable & Sendable] = []
      for choice in force.choices {
        guard case .decision(let decision) = choice, let key = decision.key else {
          throw cannotDecide(index, choice, "a key")
        }
        keys.append(key)
      }
      if let original, node.kind.suspends {
        return (
          .asyncDecideKey,
          AsyncDecideKeyBox<Context> { [keys] context in
            observe(id, .entered)
            _ = try await original.call(&context)
            let key = keys[try pick.next()]
            observe(id, .ended(.key(key)))
            return key
          }
        )
      }
      return (
        .decideKey,
        DecideKeyBox<Context> { [keys] context in
          observe(id, .entered)
          _ = try original?.callSynchronously(&context)
          let key = keys[try pick.next()]
          observe(id, .ended(.key(key)))
          return key
        }
      )
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
    }
    return ScriptProblem(
      stateName: record.name,
      message:
        "A script cannot force \(forced) on \(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location)): it can decide \(allowed)\(choices)\(ending). Force one of those instead."
    )
  }
}

/// Which of a forced state's decisions each visit takes: the only one at every visit, or
/// the next in turn, failing once they have all been taken.
private final class DecisionPicker: Sendable {
  private let count: Int
  private let stateName: String
  private let location: SourceLocation
  private let visits = AtomicWord<Int>(0)

  init(count: Int, stateName: String, location: SourceLocation) {
    self.count = count
    self.stateName = stateName
    self.location = location
  }

  /// The position of the decision this visit takes.
  ///
  /// - Throws: A ``ScriptProblem`` when every decision has been taken.
  func next() throws(ScriptProblem) -> Int {
    guard count > 1 else { return 0 }
    let visit = visits.wrappingAdd(1, ordering: .relaxed).oldValue
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
