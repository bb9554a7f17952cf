// Routes: finding them. `routes(from:cycles:)` and `shortestRoute(to:from:)` are thin
// wrappers over the core's route walk (`Graph/Flowchart+Routes.swift`, `package` API, which
// the `flowchart routes` command uses too, without Swift Testing), adding issue reporting.
// The value is in `Route.swift`.

import Flowchart
import Testing

extension Flowchart {
  /// Every route from `start` (the chart's start by default) to each way its flow can
  /// end, each cycle taken at most `cycles` times.
  ///
  /// **How routes are counted.** A route follows one exit of each state it enters and ends
  /// at a final state of its flow: a final condition ends two routes (one deciding yes, one
  /// no), any other final state one. A route may enter each state at most `cycles + 1`
  /// times, so `cycles: 0` gives the routes that enter no state twice, and a loop whose
  /// exit is a condition adds `cycles` routes that go round it once, twice, … A way that
  /// would enter a state more often is not a route (it does not end).
  ///
  /// A dispatch runs all its branches, so a route through it takes one route of each
  /// branch (each branch's routes counted the same way, in the branch alone), listed branch
  /// by branch after the dispatch: a dispatch whose branches have *a* and *b* routes
  /// contributes *a* × *b* combinations, each followed by every route from the state after
  /// it.
  ///
  /// A waiting state is a step like a condition (a `Wait` that decides) or an action (one
  /// that only applies its value); the route's script forces it.
  ///
  /// A state with modifiers ends in more ways, each a route, after its ordinary ones (see
  /// ``Route/Failure``): with a retry, a failed attempt that the retry makes good, on each
  /// way the state goes on (`Charge card [fails, retried]`); each catch route, once the
  /// retries have run out (`Validate order [fails, caught] → Reject invalid order`), but
  /// one limited to `StateTimeoutError`, which only a timeout takes; with a
  /// retry and no catch route, the retries running out (`Upload [fails 3×, run fails]`,
  /// whose run fails: ``Route/endsInFailure``); with a timeout, attempts that time out,
  /// taken by the first catch route that takes a `StateTimeoutError`, or failing the run.
  /// Inside a dispatch branch, a failure nothing catches is not a route (the dispatch's join
  /// policy decides what follows); nor are retries of more than 1,000 attempts running out.
  ///
  /// For example, the Health workflow has 3 routes; a loop `Fetch → Failed?` whose `yes`
  /// goes back to `Fetch` has `cycles + 1`.
  ///
  /// - Parameters:
  ///   - start: The state to start from; a state inside a dispatch branch gives the routes
  ///     to the ends of its branch.
  ///   - cycles: How many times a route may come back to a state it entered; 0 or more (a
  ///     negative count records an issue and counts as 0).
  /// - Returns: The routes, in the order of the states' exits (a condition's `yes` routes
  ///   before its `no` routes).
  /// - Complexity: Proportional to the total length of the routes, which can grow
  ///   exponentially with the number of decisions.
  public func routes(from start: StateID? = nil, cycles: Int = 0) -> [Route] {
    if cycles < 0 {
      IssueReporting.report(
        "routes(cycles: \(cycles)) asks for a negative number of turns round a cycle; counting 0 instead. Pass 0 or more.",
        sourceLocation: #_sourceLocation)
    }
    return walkedRoutes(from: start, cycles: max(cycles, 0)).map(Route.init)
  }

  /// The routes from the state named `name`; see ``routes(from:cycles:)``.
  ///
  /// - Throws: A ``ScriptError`` when no state or several states have the name.
  public func routes(fromStateNamed name: String, cycles: Int = 0) throws(ScriptError) -> [Route] {
    do {
      return routes(from: try scriptedState(named: name), cycles: cycles)
    } catch {
      throw ScriptError(error)
    }
  }

  /// The shortest route from `start` (the chart's start by default) to `target`: the
  /// states a run enters on its way, ending with `target` itself, which takes no exit yet.
  ///
  /// Length is counted in the flow of `target`: a dispatch on the way counts as one
  /// state, and the route lists after it each branch's shortest route to one of its ends,
  /// as a run would enter them. The route to a state inside a dispatch branch enters the
  /// dispatch, runs the branches before the target's to their nearest ends, then goes down
  /// the target's branch. Among routes of equal length, the one that takes the earlier
  /// exits (`yes` before `no`, keys in declaration order) wins, and a final condition at
  /// the end of a branch decides `yes`. A state that only a catch route reaches is reached
  /// by failing into that route (its retries run out first, or it times out, as the route's
  /// ``Route/script`` forces); an arrow that reaches a state as soon is taken instead.
  ///
  /// - Returns: The route, or `nil` when no route from `start` enters `target`.
  /// - Complexity: O(*n*) in the number of states and exits.
  public func shortestRoute(to target: StateID, from start: StateID? = nil) -> Route? {
    shortestWalkedRoute(to: target, from: start).map(Route.init)
  }

  /// The shortest route to the state named `name`; see ``shortestRoute(to:from:)``.
  ///
  /// - Throws: A ``ScriptError`` when no state or several states have the name.
  public func shortestRoute(toStateNamed name: String) throws(ScriptError) -> Route? {
    do {
      return shortestRoute(to: try scriptedState(named: name))
    } catch {
      throw ScriptError(error)
    }
  }
}
