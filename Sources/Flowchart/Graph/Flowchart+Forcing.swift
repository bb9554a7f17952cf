// Scripting: what a forced state decides. The box that replaces a forced state's code, one
// per code kind, takes the state's forced choices in turn (`DecisionPicker`), and a script
// that forces a choice the state cannot make is a `ScriptProblem` naming it. The copy of the
// chart is made in `Flowchart+Scripting.swift`.

extension Flowchart {
  /// The kind and box that replace the code of the state `index`, whose node (without its
  /// modifiers) is `node`, to force `force`, reporting to `observer` if any. `modifiers` are
  /// the state's, if it has any: a forced failure must fit them.
  func forcedCode(
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
      failures: failures, repeatsLast: force.repeatsLastChoice)
    let observe = observer ?? { _, _ in }
    let effect = try forcedEffect(for: index, node: node, force)
    switch node.kind {
    case .pass, .action, .asyncAction, .callAction:
      for choice in force.choices
      where !choice.isFailure && choice != .decision(.done) && (isFinal || choice != .exit(.next)) {
        throw cannotDecide(index, choice, "only done")
      }
      let step: ObservedStep = isFinal ? .ended(.done) : .tookExit(0)
      return forcedBox(
        effect, values: Array(repeating: step, count: force.choices.count), pick: pick, state: id,
        observe: observe, step: { $0 },
        result: { _ in },
        synchronous: { (.action, ActionBox<Context>($0)) },
        asynchronous: { (.asyncAction, AsyncActionBox<Context>($0)) })
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
      return forcedBox(
        effect, values: answers, pick: pick, state: id, observe: observe,
        step: { Self.step($0, isFinal: isFinal) },
        result: { $0 },
        synchronous: { (.condition, ConditionBox<Context>($0)) },
        asynchronous: { (.asyncCondition, AsyncConditionBox<Context>($0)) })
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
      return forcedBox(
        effect, values: positions, pick: pick, state: id, observe: observe, step: { .tookExit($0) },
        result: { targets[$0] },
        synchronous: { (.select, SelectBox<Context>($0)) },
        asynchronous: { (.asyncSelect, AsyncSelectBox<Context>($0)) })
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
      return forcedBox(
        effect, values: keys, pick: pick, state: id, observe: observe, step: { .ended(.key($0)) },
        result: { $0 },
        synchronous: { (.decideKey, DecideKeyBox<Context>($0)) },
        asynchronous: { (.asyncDecideKey, AsyncDecideKeyBox<Context>($0)) })
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

  /// The kind and box of a forced state, from its effect: each attempt is observed entering,
  /// takes the value of the choice the picker gives (`values`, by position), runs the effect,
  /// is observed taking `step` of that value, and returns `result` of it. `synchronous` and
  /// `asynchronous` make the box of the state's code kind from the attempt's closure.
  private func forcedBox<Value: Sendable, Result>(
    _ effect: ForcedEffect<Context>, values: [Value], pick: DecisionPicker, state id: StateID,
    observe: @escaping @Sendable (StateID, ObservedStep) -> Void,
    step: @escaping @Sendable (Value) -> ObservedStep,
    result: @escaping @Sendable (Value) -> Result,
    synchronous: (@escaping @Sendable (inout Context) throws -> Result) -> (
      Node.Kind, any AnyObject & Sendable
    ),
    asynchronous: (@escaping @Sendable (inout Context) async throws -> Result) -> (
      Node.Kind, any AnyObject & Sendable
    )
  ) -> (Node.Kind, any AnyObject & Sendable) {
    switch effect {
    case .asynchronous(let run):
      return asynchronous { context in
        observe(id, .entered)
        let value = values[try pick.next()]
        try await run(&context)
        observe(id, step(value))
        return result(value)
      }
    case .synchronous(let run):
      return synchronous { context in
        observe(id, .entered)
        let value = values[try pick.next()]
        try run?(&context)
        observe(id, step(value))
        return result(value)
      }
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
  /// Whether the visits after the last choice take it again.
  private let repeatsLast: Bool
  private let visits = AtomicWord<Int>(0)

  init(
    count: Int, stateName: String, location: SourceLocation, failures: [(any Error)?],
    repeatsLast: Bool = false
  ) {
    self.count = count
    self.stateName = stateName
    self.location = location
    self.failures = failures
    self.repeatsLast = repeatsLast
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
    if visit >= count && repeatsLast {
      if let failure = failures[count - 1] { throw failure }
      return count - 1
    }
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

extension ForcedChoice {
  /// Whether the choice is a failure.
  var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}
