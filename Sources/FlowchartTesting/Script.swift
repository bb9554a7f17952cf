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
/// Each decision must be one the state can make: `Decision.done` for an action or a
/// waiting state without exits, `Decision.yes` or `Decision.no` for a condition (or a
/// waiting state that decides yes or no), a key for a multiple condition (it leads to the
/// exit whose text is the key's text as the printed tree shows it, or to the default exit
/// when no exit has it). A forced waiting state takes no value from outside: the script's
/// decision stands in for the one the value would have made, so a run that is not live
/// goes through it. A forced state's code does not run, unless the script keeps it with
/// ``keepingCode(of:)``: then the code runs for what it does to the context, and its
/// decision is replaced. Forcing `Decision.done` on an action only skips its code.
///
/// **Action code.** States the script does not force run their own code. Say what runs
/// instead, explicitly:
/// - ``replacingActions()`` skips the code of every action (a route's script, too, keeps
///   no action's code then): each decides `done` at once, as when it is forced. Use it for
///   actions that sleep, call a server or touch files.
/// - `replacing(_:with:)` runs a closure of the
///   test's in place of one state's code, for what it does to the context; the state's
///   decision is `done` for an action, or the one the script forces.
///
/// **Failures.** ``failing(_:times:catchRoute:)`` and ``timingOut(_:times:)`` make attempts
/// of a state's code fail, so that a test takes the state's retries, catch routes and
/// timeouts without making its code throw or waiting for a clock: the state's modifiers
/// take a forced failure as they take a thrown error. Choices are taken one per attempt, so
/// `Script().failing("Charge card").deciding("Charge card", .done)` fails the first attempt
/// and lets the retry succeed. A forced state's retries follow each other at once, with no
/// backoff delay.
///
/// A name listed twice, or given several decisions with ``deciding(_:_:)``, takes its
/// decisions in turn, one per visit (one per attempt, for a state with a retry), as a cycle
/// needs: `["Retry?": .yes, "Retry?": .no]` retries once. A state given one decision takes
/// it at every visit; a state given several fails the run once it has used them all: the
/// run throws a `RunError` of kind `thrown`, whose message says which state ran out of
/// decisions.
public struct Script: Sendable, Hashable, ExpressibleByDictionaryLiteral,
  CustomStringConvertible
{
  /// One forced choice: a decision, the exit to take, or a failure of one attempt.
  public enum Choice: Sendable, Hashable, CustomStringConvertible {
    /// A decision the state makes: `Decision.done` for an action, `Decision.yes` or
    /// `Decision.no` for a condition, `Decision.key(_:)` for a multiple condition.
    case decision(Decision)
    /// The exit a non-final state takes, by its label: `next`, `yes`, `no`, a key's text
    /// as the printed tree shows it, or `default`. The exit must exist.
    case exit(Exit.Label)
    /// One attempt of the state's code fails, without running it.
    case failure(Failure)

    /// The decision as `Decision` describes it, `exit ` and the label, or the failure.
    public var description: String {
      switch self {
      case .decision(let decision): "\(decision)"
      case .exit(let label): "exit \(label)"
      case .failure(let failure): "\(failure)"
      }
    }
  }

  /// A failure a script forces on one attempt of a state's code.
  public struct Failure: Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
      case error(catchRoute: Int?)
      case timeout
    }

    let code: Code

    /// The attempt throws an error of the script's own: the state's retry retries it, and
    /// once the retries have run out its first catch route takes it, whatever error types
    /// they are limited to; a state without catch routes fails the run, with a `RunError`
    /// of kind `thrown`. The error reads `its code failed, as the script forced it to`.
    public static let error = Failure(code: .error(catchRoute: nil))

    /// As `Failure.error`, for the catch route at `position`, counted from 0 in the order the
    /// state's `.catch` modifiers are written: that route takes it, and no other.
    public static func error(catchRoute position: Int) -> Failure {
      Failure(code: .error(catchRoute: position))
    }

    /// The attempt times out at once, without waiting: it throws the state's
    /// `StateTimeoutError`, which its retry and catch routes take as they take a real
    /// timeout (with their error types), and which, uncaught, fails the run with a
    /// `RunError` of kind `timedOut`. The state must have a timeout.
    public static let timeout = Failure(code: .timeout)

    /// `failure`, `failure for catch route 2` or `timeout`.
    public var description: String {
      switch code {
      case .error(nil): "failure"
      case .error(let route?): "failure for catch route \(route + 1)"
      case .timeout: "timeout"
      }
    }

    var forced: ForcedFailure {
      switch code {
      case .error(let route): .error(catchRoute: route)
      case .timeout: .timeout
      }
    }
  }

  /// Which code the actions that a script does not force run.
  public enum ActionCode: Sendable, Hashable {
    /// Each action runs its own code (the default).
    case kept
    /// No action runs its own code: each decides `done` at once, unless the script
    /// replaces its code with a closure.
    case replaced
  }

  /// Code a script runs in place of a state's own.
  public struct Replacement: Sendable, Hashable {
    /// The state's name.
    public let stateName: String
    /// The closure, over the chart's context.
    let code: CodeBox

    /// Whether both replace the same state's code with the same closure.
    public static func == (lhs: Replacement, rhs: Replacement) -> Bool {
      lhs.stateName == rhs.stateName && lhs.code === rhs.code
    }

    /// Hashes the state's name and the closure's identity.
    public func hash(into hasher: inout Hasher) {
      hasher.combine(stateName)
      hasher.combine(ObjectIdentifier(code))
    }
  }

  /// A closure of a test's, compared by identity.
  final class CodeBox: Sendable {
    let closure: any Sendable
    init(_ closure: any Sendable) { self.closure = closure }
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
  /// Which code the actions run that the script does not force: their own (the default),
  /// or none (see ``replacingActions()``).
  public private(set) var actionCode: ActionCode = .kept
  /// The states whose code the script replaces with closures, in the order given.
  public private(set) var replacements: [Replacement] = []

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

  /// The script with `times` attempts of the state named `name` failing, after any
  /// choices the script already gives it; see `Failure.error`.
  ///
  /// ```swift
  /// // Two failed attempts, then a third that succeeds: the retry route.
  /// let script = Script().failing("Charge card", times: 2).deciding("Charge card", .done)
  /// ```
  ///
  /// - Parameters:
  ///   - name: The state's name.
  ///   - times: How many attempts fail in a row; 1 or more.
  ///   - catchRoute: The position, from 0 in the order they are written, of the catch
  ///     route that takes the failure once the retries have run out; the first by default.
  public func failing(_ name: String, times: Int = 1, catchRoute: Int? = nil) -> Script {
    var script = self
    let failure = catchRoute.map(Failure.error(catchRoute:)) ?? .error
    script.add(name, Array(repeating: .failure(failure), count: max(times, 1)))
    return script
  }

  /// The script with `times` attempts of the state named `name` timing out at once, with
  /// no clock and no wait, after any choices the script already gives it; see
  /// ``Failure/timeout``.
  public func timingOut(_ name: String, times: Int = 1) -> Script {
    var script = self
    script.add(name, Array(repeating: .failure(.timeout), count: max(times, 1)))
    return script
  }

  /// The script with the code of every action replaced: an action the script does not
  /// force, or whose code it keeps, decides `done` at once without running its code, unless
  /// `replacing(_:with:)` gives it a closure.
  ///
  /// ```swift
  /// let result = try await chart.run(with: subject, script: route.script.replacingActions())
  /// ```
  ///
  /// Only the chart's own actions are replaced: the charts that its subflows and maps run
  /// run their own code.
  public func replacingActions() -> Script {
    var script = self
    script.actionCode = .replaced
    return script
  }

  /// The script with the code of the state named `name` replaced by `code`, which runs at
  /// each visit for what it does to the context.
  ///
  /// The state decides `done` when it is an action, a waiting state without exits, a
  /// subflow or a map; a state that decides more (a condition, a multiple condition, a
  /// deciding waiting state) needs its decision forced too, with ``deciding(_:_:)`` or
  /// ``taking(_:_:)``. A forced failure does not run `code`.
  ///
  /// ```swift
  /// let script = route.script.replacingActions()
  ///   .replacing("Lift weights") { (subject: inout Subject) in subject.log.append("lifted") }
  /// ```
  ///
  /// A closure over another type than the chart's context is a ``ScriptError`` when the
  /// script is applied.
  public func replacing<Context: Sendable>(
    _ name: String, with code: @escaping @Sendable (inout Context) throws -> Void
  ) -> Script {
    var script = self
    script.replacements.append(Replacement(stateName: name, code: CodeBox(code)))
    return script
  }

  /// The script with the code of the state named `name` replaced by asynchronous `code`;
  /// see `replacing(_:with:)`. The state is then
  /// asynchronous.
  public func replacing<Context: Sendable>(
    _ name: String, with code: @escaping @Sendable (inout Context) async throws -> Void
  ) -> Script {
    var script = self
    script.replacements.append(Replacement(stateName: name, code: CodeBox(code)))
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
    let replaced =
      replacements.isEmpty
      ? "" : " (replacing the code of \(replacements.map(\.stateName).joined(separator: ", ")))"
    let actions = actionCode == .replaced ? " (replacing every action's code)" : ""
    return (forced.isEmpty ? "no forced decisions" : forced.joined(separator: ", ")) + kept
      + replaced + actions
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
          case .failure(let failure): ForcedChoice.failure(failure.forced)
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
      for replacement in script.replacements {
        let name = replacement.stateName
        let id = try scriptedState(named: name)
        if forced[id] == nil {
          guard self[id].kind.decides == .done, self[id].kind != .dispatch else {
            throw ScriptError(
              stateName: name,
              message:
                "The script replaces the code of \(self[id].kind) '\(name)' (\(self[id].location)) but forces none of its decisions, and a closure that returns nothing cannot decide. Force its decision too, with deciding(_:_:) or taking(_:_:)."
            )
          }
          forced[id] = ForcedDecision(choices: [.decision(.done)])
        }
        guard forced[id]?.replacement == nil else {
          throw ScriptError(
            stateName: name,
            message:
              "The script replaces the code of '\(name)' twice. Give it one replacing(_:with:)."
          )
        }
        forced[id]?.runsCode = false
        forced[id]?.replacement = replacement.code.closure
      }
      if script.actionCode == .replaced {
        for id in states where self[id].kind == .action {
          if forced[id] == nil {
            forced[id] = ForcedDecision(choices: [.decision(.done)])
          } else {
            forced[id]?.runsCode = false
          }
        }
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
