// Routes: the value. A `Route` is the steps a run takes through a chart, with the exit,
// decision or failure of each; it reads as text (its name in test output) and makes the
// `Script` that forces a run down it. It wraps the core's `WalkedRoute` (plain data, found by
// the walk in `Graph/Flowchart+Routes.swift`); `Flowchart+Routes.swift` here is the public API.

import Flowchart
import Testing

/// One way through a chart: the states a run enters, in order, with the exit or decision
/// each one takes.
///
/// Get every route with `Flowchart.routes(from:cycles:)` and run each with its
/// ``script``, one test per route:
///
/// ```swift
/// @Test(arguments: try healthWorkflow().routes())
/// func everyRouteEndsWithAnOutcome(route: Route) async throws {
///   let result = try await healthWorkflow().run(with: Subject(), script: route.script)
///   #expect(result.pathNames == route.stateNames)
/// }
/// ```
///
/// A route reads as its steps joined by arrows, each decision in brackets, a dispatch's
/// branches in braces separated by bars; that is also its name in test output:
///
/// ```
/// Willing to exercise? [no] → Injured? [yes]
/// Plan? [pro] → Sync { Upload [done] | Has changes? [yes] → Download [done] } → Done [done]
/// ```
public struct Route: Sendable, Hashable, CustomStringConvertible, CustomTestStringConvertible {
  /// One state of a route and what it took.
  public struct Step: Sendable, Hashable {
    /// The step as the core's route walk found it.
    let base: WalkedRoute.Step

    /// The state.
    public var state: StateID { base.state }
    /// The state's name.
    public var name: String { base.name }
    /// The state's kind.
    public var kind: StateKind { base.kind }
    /// The exit the state takes, or `nil` when it ends its flow (or ends the route, for a
    /// route to a state).
    public var exit: Exit.Label? { base.exit }
    /// What the state decides when it ends its flow: `Decision.done`, `Decision.yes` or
    /// `Decision.no`; `nil` for a state that takes an exit, and for a final multiple
    /// condition, whose keys the chart does not list.
    public var decision: Decision? { base.decision }
    /// How many dispatches the state is inside: 0 at the top level.
    public var depth: Int { base.depth }
    /// The position, from zero, of the dispatch branch the state is in; `nil` at the top
    /// level.
    public var branch: Int? { base.branch }
    /// How the state's code fails on this route, for a state with a retry, catch routes or
    /// a timeout; `nil` when its first attempt succeeds.
    public var failure: Failure? { base.failure.map(Failure.init) }
  }

  /// How a state's code fails on a route: how many attempts fail, and what follows.
  ///
  /// A route shows it in the state's brackets: `Charge card [fails, retried]`,
  /// `Charge card [fails 3×, caught]`, `Fetch prices [times out, run fails]`.
  public struct Failure: Sendable, Hashable, CustomStringConvertible {
    /// What follows the failed attempts.
    public enum Outcome: Sendable, Hashable {
      /// The state's retry runs the code again, and that attempt succeeds.
      case retried
      /// The catch route at this position (from 0, in the order the state's `.catch`
      /// modifiers are written) takes the error: the route goes on at its target.
      case caught(route: Int)
      /// Nothing takes the error: the run fails at the state, with a `RunError` (of kind
      /// `timedOut` for a timeout, `thrown` otherwise).
      case failsRun
    }

    /// How many attempts fail in a row: 1, or every attempt when the retries run out.
    public let attempts: Int
    /// Whether the attempts time out (rather than throw).
    public let timesOut: Bool
    /// What follows them.
    public let outcome: Outcome

    /// A failure of `attempts` attempts in a row, timing out or throwing, and what follows.
    public init(attempts: Int, timesOut: Bool, outcome: Outcome) {
      self.attempts = attempts
      self.timesOut = timesOut
      self.outcome = outcome
    }

    /// The failure the core's route walk found.
    init(_ walked: WalkedRoute.Failure) {
      let outcome: Outcome =
        switch walked.outcome {
        case .retried: .retried
        case .caught(let route): .caught(route: route)
        case .failsRun: .failsRun
        }
      self.init(attempts: walked.attempts, timesOut: walked.timesOut, outcome: outcome)
    }

    /// `fails`, `fails 3×` or `times out`, then `retried`, `caught` or `run fails`.
    public var description: String {
      let outcome: WalkedRoute.Failure.Outcome =
        switch self.outcome {
        case .retried: .retried
        case .caught(let route): .caught(route: route)
        case .failsRun: .failsRun
        }
      return WalkedRoute.Failure(attempts: attempts, timesOut: timesOut, outcome: outcome)
        .description
    }
  }

  /// The steps, in the order a run enters the states: a dispatch is followed by the steps
  /// of each of its branches, branch by branch in declaration order, then by the state
  /// after it.
  public let steps: [Step]

  /// The route as the core's route walk found it.
  let base: WalkedRoute

  /// The route the core's walk found.
  init(_ base: WalkedRoute) {
    self.base = base
    self.steps = base.steps.map(Step.init(base:))
  }

  /// The names of the states, in order: what `RunResult.pathNames` holds after a run
  /// down the route.
  public var stateNames: [String] { steps.map(\.name) }

  /// The last step of the top-level flow: the state the route ends at.
  public var last: Step {
    steps.last(where: { $0.depth == steps[0].depth }) ?? steps[steps.count - 1]
  }

  /// Whether a run down the route fails: a state's failure that nothing catches ends it
  /// (``Failure/Outcome/failsRun``), with a `RunError`.
  public var endsInFailure: Bool { base.endsInFailure }

  /// The script that drives a run down the route: every decision the route names.
  ///
  /// - Each condition and multiple condition the route passes takes the exit it takes
  ///   (or, for a final condition, decides as the route does), one per visit.
  /// - Each waiting state is forced (it takes no value from outside): one that decides
  ///   takes the route's exit, one without exits decides `done` without running its code.
  /// - Each state that fails on the route fails as it does (``Failure``): its attempts
  ///   fail, or time out at once, then the retry succeeds, a catch route takes the error,
  ///   or the run fails. Its code does not run in the failed attempts; an action's code
  ///   still runs in an attempt that succeeds (unless the script replaces actions).
  ///
  /// Other actions, final multiple conditions, subflows and maps run their own code: add
  /// ``Script/replacingActions()`` to skip actions' code, or
  /// `Script.replacing(_:with:)` to run a
  /// closure in its place.
  public var script: Script {
    // A state forced at one visit must be forced at every visit: it takes one choice each.
    var forcedNames: Set<String> = []
    for step in steps
    where step.failure != nil || step.kind == .waiting || step.kind == .delay
      || (step.kind.decides != .done && (step.exit != nil || step.decision != nil))
    {
      forcedNames.insert(step.name)
    }
    var script = Script()
    var kept: [String] = []
    for step in steps where forcedNames.contains(step.name) {
      var choices: [Script.Choice] = []
      if let failure = step.failure {
        let choice: Script.Choice =
          switch failure.outcome {
          case .caught(let route) where !failure.timesOut: .failure(.error(catchRoute: route))
          case .retried, .caught, .failsRun: .failure(failure.timesOut ? .timeout : .error)
          }
        choices += Array(repeating: choice, count: failure.attempts)
        guard failure.outcome == .retried else {
          script.add(step.name, choices)
          continue
        }
      }
      // (A final multiple condition, whose keys the chart does not list, has neither: a
      // route forces it only when it fails, and its failure ends it.)
      if let exit = step.exit {
        choices.append(.exit(exit))
      } else if let decision = step.decision {
        choices.append(.decision(decision))
      }
      script.add(step.name, choices)
      if step.kind == .action && !kept.contains(step.name) { kept.append(step.name) }
    }
    for name in kept { script = script.keepingCode(of: name) }
    return script
  }

  /// The steps joined by ` → `, decisions in brackets, branches in braces.
  public var description: String { base.description }

  /// The route's ``description``, so each case of a parameterized test reads as its route.
  public var testDescription: String { description }
}
