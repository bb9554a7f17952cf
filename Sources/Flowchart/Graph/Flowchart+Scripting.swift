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
          dispatches[plan].merge = observedMerge(of: index, dispatches[plan].merge, observer)
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
    let runsCode = force.runsCode
    let code = node.code
    switch node.kind {
    case .pass, .action, .asyncAction, .callAction:
      for choice in force.choices
      where choice != .decision(.done) && (isFinal || choice != .exit(.next)) {
        throw cannotDecide(index, choice, "only done")
      }
      let step: ObservedStep = isFinal ? .ended(.done) : .tookExit(0)
      if runsCode && node.kind == .asyncAction {
        let original = box(AsyncActionBox<Context>.self, code)
        return (
          .asyncAction,
          AsyncActionBox<Context> { context in
            observe(id, .entered)
            try await original.function(&context)
            _ = try pick.next()
            observe(id, step)
          }
        )
      }
      let original =
        runsCode && node.kind != .pass ? box(ActionBox<Context>.self, code) : nil
      return (
        .action,
        ActionBox<Context> { context in
          observe(id, .entered)
          try original?.function(&context)
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
      if runsCode && node.kind == .asyncCondition {
        let original = box(AsyncConditionBox<Context>.self, code)
        return (
          .asyncCondition,
          AsyncConditionBox<Context> { [answers] context in
            observe(id, .entered)
            _ = try await original.function(&context)
            let answer = answers[try pick.next()]
            observe(id, Self.step(answer, isFinal: isFinal))
            return answer
          }
        )
      }
      let original = runsCode ? box(ConditionBox<Context>.self, code) : nil
      return (
        .condition,
        ConditionBox<Context> { [answers] context in
          observe(id, .entered)
          _ = try original?.function(&context)
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
      switch runsCode ? exitSelector(of: index) : nil {
      case .asynchronous(let original):
        return (
          .asyncSelect,
          AsyncSelectBox<Context> { [positions] context in
            observe(id, .entered)
            do { _ = try await original.function(&context) } catch is UnmatchedKey {}
            let position = positions[try pick.next()]
            observe(id, .tookExit(position))
            return targets[position]
          }
        )
      case let selector:
        var original: SelectBox<Context>?
        if case .synchronous(let select) = selector { original = select }
        return (
          .select,
          SelectBox<Context> { [positions, original] context in
            observe(id, .entered)
            do { _ = try original?.function(&context) } catch is UnmatchedKey {}
            let position = positions[try pick.next()]
            observe(id, .tookExit(position))
            return targets[position]
          }
        )
      }
    case .decideKey, .asyncDecideKey:
      var keys: [any Hashable & Sendable] = []
      for choice in force.choices {
        guard case .decision(let decision) = choice, let key = decision.key else {
          throw cannotDecide(index, choice, "a key")
        }
        keys.append(key)
      }
      if runsCode && node.kind == .asyncDecideKey {
        let original = box(AsyncDecideKeyBox<Context>.self, code)
        return (
          .asyncDecideKey,
          AsyncDecideKeyBox<Context> { [keys] context in
            observe(id, .entered)
            _ = try await original.function(&context)
            let key = keys[try pick.next()]
            observe(id, .ended(.key(key)))
            return key
          }
        )
      }
      let original = runsCode ? box(DecideKeyBox<Context>.self, code) : nil
      return (
        .decideKey,
        DecideKeyBox<Context> { [keys] context in
          observe(id, .entered)
          _ = try original?.function(&context)
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

  /// The box `code` points to, retained, as `type`.
  ///
  /// - Precondition: the node's kind says `code` holds a `type`.
  func box<Box: AnyObject>(_ type: Box.Type, _ code: UnsafeRawPointer?) -> Box {
    Unmanaged<Box>.fromOpaque(code.unsafelyUnwrapped).takeUnretainedValue()
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

/// A multiple condition's decision as a box that returns the position of its exit.
enum ExitSelector<Context: Sendable> {
  case synchronous(SelectBox<Context>)
  case asynchronous(AsyncSelectBox<Context>)
}
