/// What a chart's runs come to: an outcome of your own type for each way a run can end,
/// as JASWorkflow mapped a final node and its result to an outcome.
///
/// A run ends at a final state of the top level, with what that state decided (see
/// ``Decision``). Declare which outcome each such end means, and the chart checks the
/// mapping when it compiles; each ``RunResult`` then carries its ``RunResult/outcome``.
///
/// ```swift
/// enum Verdict: Hashable, Sendable { case healthy, unhealthy, inconclusive }
///
/// let health = try Flowchart<Subject>(
///   outcomes: Outcomes(mapsEveryEnd: true) {
///     OutcomeRule(.healthy, at: "Do sit-ups")
///     OutcomeRule(.inconclusive, at: "Injured?", deciding: .yes)
///     OutcomeRule(.unhealthy, at: "Injured?", deciding: .no)
///   }
/// ) { … }
/// let verdict = try await health.run(with: subject).outcome(as: Verdict.self)
/// ```
public struct Outcomes<Outcome: Hashable & Sendable>: Sendable {
  let rules: [OutcomeRule<Outcome>]
  let mapsEveryEnd: Bool
  let location: SourceLocation

  /// The outcomes of a chart.
  ///
  /// - Parameters:
  ///   - mapsEveryEnd: Whether every way a run can end must have an outcome: each final
  ///     state of the top level, with each decision it can make (an action or a dispatch
  ///     `done`, a condition `yes` and `no`; a multiple condition needs a rule without a
  ///     decision, since its keys are open). A missing one is a
  ///     ``DefinitionError/Kind/missingOutcome`` problem.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - rules: One rule per way to end, as ``OutcomeRule``s.
  public init(
    mapsEveryEnd: Bool = false, fileID: String = #fileID, line: Int = #line,
    @OutcomeRulesBuilder<Outcome> _ rules: () -> [OutcomeRule<Outcome>]
  ) {
    self.rules = rules()
    self.mapsEveryEnd = mapsEveryEnd
    location = SourceLocation(fileID: fileID, line: line)
  }
}

/// One way to end and the outcome it means: a final state of the top level, by name, and
/// optionally what it decided.
public struct OutcomeRule<Outcome: Hashable & Sendable>: Sendable {
  let outcome: Outcome
  let stateName: String
  let decision: Decision?
  let location: SourceLocation

  /// The run's outcome is `outcome` when it ends at the final state named `stateName`,
  /// having decided `decision` (`nil`: whatever it decided).
  ///
  /// - Parameters:
  ///   - outcome: What such an end means.
  ///   - stateName: The name of a final state of the chart's top level.
  ///   - decision: What that state decided; `nil` for any decision.
  ///   - fileID: The file of the rule, for definition errors; keep the default.
  ///   - line: The line of the rule, for definition errors; keep the default.
  public init(
    _ outcome: Outcome, at stateName: String, deciding decision: Decision? = nil,
    fileID: String = #fileID, line: Int = #line
  ) {
    self.outcome = outcome
    self.stateName = stateName
    self.decision = decision
    location = SourceLocation(fileID: fileID, line: line)
  }
}

/// Collects the ``OutcomeRule``s of ``Outcomes``, one per line.
@resultBuilder
public enum OutcomeRulesBuilder<Outcome: Hashable & Sendable> {
  /// A rule; gives `.case` shorthand its type.
  public static func buildExpression(_ rule: OutcomeRule<Outcome>) -> OutcomeRule<Outcome> {
    rule
  }

  /// The rules, in order.
  public static func buildBlock(_ rules: OutcomeRule<Outcome>...) -> [OutcomeRule<Outcome>] {
    rules
  }
}

extension Flowchart {
  /// Compiles a declaration into a flowchart whose runs map their ends to `outcomes`.
  ///
  /// The outcomes are checked against the compiled chart: a rule that names no state, or a
  /// state that is not final or is inside a dispatch branch, or a decision the state cannot
  /// make (`yes` from an action, say), is a ``DefinitionError/Kind/invalidOutcome``
  /// problem; so is a second rule for the same end. With `mapsEveryEnd`, an end without
  /// a rule is a ``DefinitionError/Kind/missingOutcome`` problem. The declaration's own
  /// problems come first: the outcomes are checked once it compiles.
  ///
  /// - Parameters:
  ///   - outcomes: What each way to end means.
  ///   - entryPoints: As for ``init(entryPoints:fileID:line:_:)``.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - declarations: The chart's states.
  /// - Throws: A ``DefinitionError`` listing every problem.
  @inlinable
  public init<Outcome: Hashable & Sendable>(
    outcomes: Outcomes<Outcome>,
    entryPoints: [String] = [],
    fileID: String = #fileID,
    line: Int = #line,
    @FlowBuilder<Context> _ declarations: () -> [Declaration<Context>]
  ) throws(DefinitionError) {
    var compiler = Compiler(
      entryPoints: entryPoints, location: SourceLocation(fileID: fileID, line: line))
    self.init(
      graph: try Graph(
        compiler.compile(declarations().map { $0.node }), outcomes: outcomes,
        chart: SourceLocation(fileID: fileID, line: line)))
  }
}

extension Graph {
  /// Takes over a compiled chart with its outcomes, once they are checked.
  @usableFromInline
  convenience init<Outcome>(
    _ chart: CompiledChart, outcomes: Outcomes<Outcome>, chart location: SourceLocation
  ) throws(DefinitionError) {
    var chart = chart
    chart.outcomes = try OutcomeTable(outcomes, records: chart.records, chart: location)
    self.init(chart)
  }
}

/// The declared outcomes, by final state: what ``RunResult/outcome`` looks up.
@usableFromInline
struct OutcomeTable: Sendable {
  /// The rules of each final state, in declaration order; a rule without a decision
  /// matches any.
  private let rules: [Int32: [(decision: Decision?, outcome: any Hashable & Sendable)]]

  /// Checks `outcomes` against the compiled states and builds the table.
  init<Outcome>(
    _ outcomes: Outcomes<Outcome>, records: [StateRecord], chart: SourceLocation
  ) throws(DefinitionError) {
    var problems: [DefinitionError.Problem] = []
    var rules: [Int32: [(decision: Decision?, outcome: any Hashable & Sendable)]] = [:]
    func problem(_ kind: DefinitionError.Kind, _ name: String, _ at: SourceLocation, _ text: String)
    {
      problems.append(.init(kind: kind, name: name, location: at, message: text))
    }
    var indexByName: [String: [Int32]] = [:]
    for (index, record) in records.enumerated() {
      indexByName[record.name, default: []].append(Int32(index))
    }
    for rule in outcomes.rules {
      let quoted = DisplayText.quoted(name: rule.stateName)
      let matches = indexByName[rule.stateName] ?? []
      guard matches.count == 1, let state = matches.first else {
        problem(
          matches.isEmpty ? .unknownName : .ambiguousName, rule.stateName, rule.location,
          matches.isEmpty
            ? "The outcome \(rule.outcome) names \(quoted), which is no state. Name a final state of the chart."
            : "The outcome \(rule.outcome) names \(quoted), which \(matches.count) states have. Rename them so the outcome names one."
        )
        continue
      }
      let record = records[Int(state)]
      let described = "\(record.kind) \(quoted)"
      guard record.isFinal else {
        problem(
          .invalidOutcome, rule.stateName, rule.location,
          "The outcome \(rule.outcome) names \(described), which is not final, so no run ends there. Name a final state, or declare it final (isFinal: true)."
        )
        continue
      }
      guard record.flow == 0 else {
        problem(
          .invalidOutcome, rule.stateName, rule.location,
          "The outcome \(rule.outcome) names \(described), which ends only its dispatch branch, not the run. Name a final state of the top level."
        )
        continue
      }
      if let decision = rule.decision, !Self.canDecide(decision, kind: record.kind) {
        problem(
          .invalidOutcome, rule.stateName, rule.location,
          "The outcome \(rule.outcome) expects \(described) to decide \(decision), which it cannot: it decides \(Self.decisions(of: record.kind)). Use one of those, or leave the decision out."
        )
        continue
      }
      let earlier = rules[state] ?? []
      if earlier.contains(where: { $0.decision == nil || $0.decision == rule.decision }) {
        problem(
          .invalidOutcome, rule.stateName, rule.location,
          "The outcome \(rule.outcome) maps an end of \(described) that an earlier outcome already maps. Remove one of them."
        )
        continue
      }
      rules[state, default: []].append((rule.decision, rule.outcome))
    }
    if outcomes.mapsEveryEnd {
      for (index, record) in records.enumerated() where record.isFinal && record.flow == 0 {
        let mapped = rules[Int32(index)] ?? []
        if mapped.contains(where: { $0.decision == nil }) { continue }
        let needed: [Decision] =
          switch record.kind.decides {
          case .yesOrNo: [.yes, .no]
          case .key: []
          case .done: [.done]
          }
        let missing = needed.filter { decision in !mapped.contains { $0.decision == decision } }
        guard record.kind.decides != .key, missing.isEmpty else {
          let what =
            record.kind.decides == .key
            ? "with any key it decides"
            : "deciding \(missing.map(\.description).joined(separator: " or "))"
          problem(
            .missingOutcome, record.name, record.location,
            "A run can end at \(record.kind) \(DisplayText.quoted(name: record.name)) \(what), and no outcome maps that. Add an OutcomeRule for it to the chart's outcomes (declared at \(outcomes.location))."
          )
          continue
        }
      }
    }
    guard problems.isEmpty else {
      throw DefinitionError(problems: problems, location: chart)
    }
    self.rules = rules
  }

  private static func canDecide(_ decision: Decision, kind: StateKind) -> Bool {
    switch kind.decides {
    case .yesOrNo: decision == .yes || decision == .no
    case .key: decision.key != nil
    case .done: decision == .done
    }
  }

  private static func decisions(of kind: StateKind) -> String {
    switch kind.decides {
    case .yesOrNo: "yes or no"
    case .key: "a key"
    case .done: "done"
    }
  }

  /// The outcome of a run that ended at `state` deciding `decision`.
  func outcome(at state: Int32, deciding decision: Decision) -> (any Hashable & Sendable)? {
    rules[state]?.first { $0.decision == nil || $0.decision == decision }?.outcome
  }
}

extension RunResult {
  /// The outcome the chart's ``Outcomes`` map this end to; `nil` when the chart declares
  /// no outcomes, or none for this end.
  public var outcome: (any Hashable & Sendable)? {
    graph.outcomes?.outcome(at: Int32(finalState.index), deciding: decision)
  }

  /// ``outcome`` as an `Outcome`, or `nil` when there is none or it is of another type.
  ///
  /// ```swift
  /// let verdict = result.outcome(as: Verdict.self)
  /// ```
  public func outcome<Outcome: Hashable & Sendable>(as type: Outcome.Type = Outcome.self)
    -> Outcome?
  {
    outcome as? Outcome
  }
}
