import Flowchart
import Testing

/// Records which states, exits and final decisions the runs of a chart took, and reports
/// those never taken.
///
/// Make one coverage for a chart, run copies of the chart that record into it, then expect
/// every exit taken:
///
/// ```swift
/// let coverage = Coverage(of: chart)
/// for route in chart.routes() {
///   _ = try await chart.run(with: subject, script: route.script, recordingInto: coverage)
/// }
/// coverage.expectComplete()
/// ```
///
/// What is covered, state by state in ID order: that the state was entered; each of its
/// exits (a condition's `yes` and `no`, each key of a multiple condition and its default, an
/// action's `next`, each branch of a dispatch and the dispatch's `next`); and for a final
/// condition each of its decisions, `yes` and `no`, since they are the run's outcomes.
///
/// A dispatch has no code of its own, so it counts as entered, and each branch as taken,
/// when the branch's first state is entered; its `next` exit counts as taken once a
/// branch's context has been folded back at its join.
///
/// Recording costs nothing when unused: only the copies made by
/// `Flowchart.scripted(_:recordingInto:)`, `Flowchart.run(with:script:recordingInto:stepLimit:)`
/// and ``recordingChart`` record, and the chart itself is untouched. A coverage is
/// `Sendable`: concurrent runs, and tests running in parallel, may record into one.
public final class Coverage<Context: Sendable>: Sendable {
  /// The chart whose runs this coverage records.
  public let chart: Flowchart<Context>
  /// The dispatch and branch exit each branch's first state stands for.
  private let branchStarts: [StateID: (dispatch: StateID, exit: Int)]
  let taken = Lock(Taken())

  /// What the runs took so far.
  struct Taken {
    var states: Set<StateID> = []
    var exits: Set<ExitTaken> = []
    var decisions: Set<DecisionMade> = []
  }

  struct ExitTaken: Hashable {
    var state: StateID
    var exit: Int
  }

  struct DecisionMade: Hashable {
    var state: StateID
    var decision: Decision
  }

  /// A coverage of `chart`, with nothing taken yet.
  public init(of chart: Flowchart<Context>) {
    self.chart = chart
    var starts: [StateID: (dispatch: StateID, exit: Int)] = [:]
    for id in chart.states {
      for (position, exit) in chart[id].exits.enumerated() where exit.label.branch != nil {
        starts[exit.target] = (id, position)
      }
    }
    branchStarts = starts
  }

  /// A copy of ``chart`` whose runs record into this coverage, every state running its own
  /// code.
  public var recordingChart: Flowchart<Context> {
    // An empty script always fits the chart this coverage was made for.
    do { return try chart.scripted(Script(), recordingInto: self) } catch {
      preconditionFailure("\(error)")
    }
  }

  /// What the scripted copies report, as they run.
  var observer: @Sendable (StateID, ObservedStep) -> Void {
    { [self] state, step in record(step, of: state) }
  }

  private func record(_ step: ObservedStep, of state: StateID) {
    taken.withLock { taken in
      switch step {
      case .entered:
        taken.states.insert(state)
        if let branch = branchStarts[state] {
          taken.states.insert(branch.dispatch)
          taken.exits.insert(ExitTaken(state: branch.dispatch, exit: branch.exit))
        }
      case .tookExit(let exit):
        taken.exits.insert(ExitTaken(state: state, exit: exit))
      case .ended(let decision):
        taken.decisions.insert(DecisionMade(state: state, decision: decision))
      }
    }
  }

  /// Throws unless `other` is the chart this coverage was made for, or a chart compiled
  /// from the same declaration.
  func checkChart(_ other: Flowchart<Context>) throws(ScriptError) {
    let same =
      other.states == chart.states && other.start == chart.start
      && other.states.allSatisfy { other[$0].name == chart[$0].name }
    guard same else {
      throw ScriptError(
        stateName: "",
        message:
          "A coverage records the runs of the chart it was made for, and this chart is another one (\(other.states.count) states, against \(chart.states.count)). Make a Coverage(of:) this chart."
      )
    }
  }

  /// Forgets everything recorded so far.
  public func reset() {
    taken.withLock { $0 = Taken() }
  }

  /// The states, exits and final decisions no run took, in state ID order, each state's
  /// exits in the order of its `StateInfo.exits`.
  public var gaps: [CoverageGap] {
    let taken = taken.withLock { $0 }
    var gaps: [CoverageGap] = []
    for id in chart.states {
      let info = chart[id]
      guard taken.states.contains(id) else {
        gaps.append(CoverageGap(state: info, missing: .state))
        continue
      }
      for (position, exit) in info.exits.enumerated()
      where !taken.exits.contains(ExitTaken(state: id, exit: position)) {
        gaps.append(CoverageGap(state: info, missing: .exit(exit.label)))
      }
      if info.isFinal && info.kind.decides == .yesOrNo {
        for decision in [Decision.yes, .no]
        where !taken.decisions.contains(DecisionMade(state: id, decision: decision)) {
          gaps.append(CoverageGap(state: info, missing: .decision(decision)))
        }
      }
    }
    return gaps
  }

  /// Whether the runs took every state, exit and final decision.
  public var isComplete: Bool { gaps.isEmpty }

  /// One line per gap, or `Every state, exit and final decision was taken.`
  public var report: String {
    let gaps = gaps
    guard !gaps.isEmpty else { return "Every state, exit and final decision was taken." }
    let count = gaps.count == 1 ? "1 gap" : "\(gaps.count) gaps"
    return (["The runs left \(count):"] + gaps.map { "  \($0)" }).joined(separator: "\n")
  }

  /// Records an issue listing every gap, unless the runs took every state, exit and final
  /// decision.
  ///
  /// - Parameter sourceLocation: Where the issue points; keep the default, the caller.
  public func expectComplete(sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let gaps = gaps
    guard !gaps.isEmpty else { return }
    IssueReporting.report(report, sourceLocation: sourceLocation)
  }
}

/// Something no recorded run took: a state, one of its exits, or a final decision.
public struct CoverageGap: Hashable, Sendable, CustomStringConvertible {
  /// What was not taken.
  public struct Missing: Hashable, Sendable {
    fileprivate enum Code: Hashable, Sendable {
      case state
      case exit(Exit.Label)
      case decision(Decision)
    }

    fileprivate let code: Code

    /// The state was never entered (so none of its exits was taken).
    public static let state = Missing(code: .state)
    /// The state's exit with this label was never taken.
    public static func exit(_ label: Exit.Label) -> Missing { Missing(code: .exit(label)) }
    /// The final state never made this decision.
    public static func decision(_ decision: Decision) -> Missing {
      Missing(code: .decision(decision))
    }
  }

  /// The state the gap is about.
  public let state: StateInfo
  /// What was not taken.
  public let missing: Missing

  /// Creates a gap.
  public init(state: StateInfo, missing: Missing) {
    self.state = state
    self.missing = missing
  }

  /// `exit no of condition 'Injured?' (Health.swift:12) never taken`, …
  public var description: String {
    let subject = "\(state.kind) '\(state.name)' (\(state.location))"
    switch missing.code {
    case .state: return "\(subject) never entered"
    case .exit(let label): return "exit \(label) of \(subject) never taken"
    case .decision(let decision): return "decision \(decision) of \(subject) never made"
    }
  }
}
