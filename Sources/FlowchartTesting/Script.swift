import Flowchart

/// Decisions to force on named states, so that a test runs a chart down the route it
/// chooses without running the code that would decide.
///
/// Write a script as a dictionary literal from state names to decisions:
///
/// ```swift
/// let script: Script = ["Willing to exercise?": .no, "Injured?": .yes]
/// let result = try await chart.run(with: subject, script: script)
/// #expect(result.finalStateName == "Injured?")
/// ```
///
/// Each decision must be one the state can make: `Decision.done` for an action,
/// `Decision.yes` or `Decision.no` for a condition, a key for a multiple condition (it
/// leads to the exit whose text is the key's text as the printed tree shows it, or to the
/// default exit when no exit has it). A forced state's code does not run, unless the script
/// keeps it with ``keepingCode(of:)``: then the code runs for what it does to the context,
/// and its decision is replaced. Forcing `Decision.done` on an action only skips its code.
///
/// A name listed twice, or given several decisions with ``deciding(_:_:)``, takes its
/// decisions in turn, one per visit, as a cycle needs: `["Retry?": .yes, "Retry?": .no]`
/// retries once. A state given one decision takes it at every visit; a state given several
/// fails the run once it has used them all: the run throws a `RunError` of kind `thrown`,
/// whose message says which state ran out of decisions.
public struct Script: Sendable, Hashable, ExpressibleByDictionaryLiteral,
  CustomStringConvertible
{
  /// One forced choice: a decision, or the exit to take.
  public enum Choice: Sendable, Hashable, CustomStringConvertible {
    /// A decision the state makes: `Decision.done` for an action, `Decision.yes` or
    /// `Decision.no` for a condition, `Decision.key(_:)` for a multiple condition.
    case decision(Decision)
    /// The exit a non-final state takes, by its label: `next`, `yes`, `no`, a key's text
    /// as the printed tree shows it, or `default`. The exit must exist.
    case exit(Exit.Label)

    /// The decision as `Decision` describes it, or `exit ` and the label.
    public var description: String {
      switch self {
      case .decision(let decision): "\(decision)"
      case .exit(let label): "exit \(label)"
      }
    }
  }

  /// The choices forced on one state.
  public struct Entry: Sendable, Hashable {
    /// The state's name.
    public var stateName: String
    /// The choices, one per visit; a single choice is taken at every visit.
    public var choices: [Choice]
  }

  /// The forced states, in the order the script first names them.
  public private(set) var entries: [Entry] = []
  /// The names whose code still runs, in the order given.
  public private(set) var keptCode: [String] = []

  /// An empty script: every state runs its own code.
  public init() {}

  /// A script from `(state name, decision)` pairs; a name listed twice takes its decisions
  /// in turn.
  public init(dictionaryLiteral elements: (String, Decision)...) {
    for (name, decision) in elements { add(name, [.decision(decision)]) }
  }

  /// The script with `decisions` forced on the state named `name`, one per visit, after
  /// any the script already gives it.
  public func deciding(_ name: String, _ decisions: Decision...) -> Script {
    var script = self
    script.add(name, decisions.map(Choice.decision))
    return script
  }

  /// The script with the non-final state named `name` taking the exits labelled `labels`,
  /// one per visit, after any choices the script already gives it.
  ///
  /// ```swift
  /// let script = Script().taking("Plan?", .default)
  /// ```
  public func taking(_ name: String, _ labels: Exit.Label...) -> Script {
    var script = self
    script.add(name, labels.map(Choice.exit))
    return script
  }

  /// The script with the code of the named forced states kept: it runs for what it does to
  /// the context, and the script's decision replaces its own.
  ///
  /// Naming a state the script does not force is a ``ScriptError`` when the script is
  /// applied: its code runs anyway.
  public func keepingCode(of names: String...) -> Script {
    var script = self
    script.keptCode += names
    return script
  }

  mutating func add(_ name: String, _ choices: [Choice]) {
    if let index = entries.firstIndex(where: { $0.stateName == name }) {
      entries[index].choices += choices
    } else {
      entries.append(Entry(stateName: name, choices: choices))
    }
  }

  /// `Name = decision` for each forced state, separated by `, `, decisions in turn
  /// separated by `/`; then the kept code, if any.
  public var description: String {
    let forced = entries.map { entry in
      "\(entry.stateName) = \(entry.choices.map(\.description).joined(separator: "/"))"
    }
    let kept = keptCode.isEmpty ? "" : " (keeping the code of \(keptCode.joined(separator: ", ")))"
    return (forced.isEmpty ? "no forced decisions" : forced.joined(separator: ", ")) + kept
  }
}

/// Why a script cannot be applied to a chart.
///
/// The message names the state, says what is wrong and what to do:
///
/// ```
/// A script cannot force yes on action 'Lift weights' (HealthTests.swift:12): it can decide only done. Force one of those instead.
/// ```
public struct ScriptError: Error, Sendable, CustomStringConvertible {
  /// The name the script used, or the name of the state the problem is about.
  public let stateName: String
  /// The problem in full: what is wrong and what to do.
  public let message: String

  init(_ problem: ScriptProblem) {
    stateName = problem.stateName
    message = problem.message
  }

  init(stateName: String, message: String) {
    self.stateName = stateName
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

extension Flowchart {
  /// A copy of the chart in which the states `script` names decide as it says.
  ///
  /// The copy runs with the ordinary `Flowchart.run(with:stepLimit:isolation:)` and
  /// `Flowchart.runSynchronously(with:stepLimit:)`, so its results and errors are the
  /// ordinary ones, and so are dispatch, cancellation and step limits. A state whose
  /// asynchronous code is not kept becomes synchronous: a chart whose asynchronous states
  /// are all forced runs synchronously.
  ///
  /// A state given several decisions takes them in turn over all the runs of the copy:
  /// script a new copy for each run (``run(with:script:stepLimit:)`` does).
  ///
  /// - Parameters:
  ///   - script: The decisions to force.
  ///   - coverage: A coverage to record the copy's runs into, or `nil`. It must have been
  ///     made for this chart.
  /// - Throws: A ``ScriptError`` when a name names no state (with the closest name, if
  ///   any) or several, when a state cannot make a decision the script forces on it, or
  ///   when the script keeps the code of a state it does not force.
  public func scripted(
    _ script: Script, recordingInto coverage: Coverage<Context>? = nil
  ) throws(ScriptError) -> Flowchart<Context> {
    var forced: [StateID: ForcedDecision] = [:]
    do {
      for entry in script.entries {
        let id = try scriptedState(named: entry.stateName)
        let choices = entry.choices.map { choice in
          switch choice {
          case .decision(let decision): ForcedChoice.decision(decision)
          case .exit(let label): ForcedChoice.exit(label)
          }
        }
        forced[id] = ForcedDecision(choices: choices)
      }
      for name in script.keptCode {
        let id = try scriptedState(named: name)
        guard forced[id] != nil else {
          throw ScriptError(
            stateName: name,
            message:
              "The script keeps the code of '\(name)', which it does not force: that code runs anyway. Force a decision on '\(name)', or drop it from keepingCode(of:)."
          )
        }
        forced[id]?.runsCode = true
      }
      if let coverage {
        try coverage.checkChart(self)
        return try scripted(forcing: forced, observer: coverage.observer)
      }
      return try scripted(forcing: forced)
    } catch let problem as ScriptProblem {
      throw ScriptError(problem)
    } catch let error as ScriptError {
      throw error
    } catch {
      preconditionFailure("scripting throws only script problems: \(error)")
    }
  }

  /// Runs a copy of the chart in which the states `script` names decide as it says.
  ///
  /// ```swift
  /// let result = try await chart.run(with: subject, script: ["Injured?": .yes])
  /// ```
  ///
  /// - Throws: A ``ScriptError`` before anything runs when the script does not fit the
  ///   chart (see ``scripted(_:recordingInto:)``); otherwise what
  ///   `Flowchart.run(with:stepLimit:isolation:)` throws.
  public func run(
    with context: Context, script: Script, recordingInto coverage: Coverage<Context>? = nil,
    stepLimit: Int? = nil
  ) async throws -> RunResult<Context> {
    try await scripted(script, recordingInto: coverage).run(with: context, stepLimit: stepLimit)
  }

  /// Runs a copy of the chart in which the states `script` names decide as it says,
  /// without `await`; every asynchronous state must be forced, its code not kept.
  ///
  /// - Throws: A ``ScriptError`` when the script does not fit the chart; otherwise what
  ///   `Flowchart.runSynchronously(with:stepLimit:)` throws.
  public func runSynchronously(
    with context: Context, script: Script, recordingInto coverage: Coverage<Context>? = nil,
    stepLimit: Int? = nil
  ) throws -> RunResult<Context> {
    try scripted(script, recordingInto: coverage).runSynchronously(
      with: context, stepLimit: stepLimit)
  }
}
