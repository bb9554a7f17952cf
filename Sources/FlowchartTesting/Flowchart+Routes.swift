// Routes: finding them. `routes(from:cycles:)` and `shortestRoute(to:from:)` walk a chart's
// exits (`RouteWalker`, iteratively), with the extra routes a state's modifiers add (a
// retried, caught or run-failing attempt, a timeout). The value is in `Route.swift`.

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
    var walker = RouteWalker(chart: self, visitLimit: max(cycles, 0) + 1)
    let from = start ?? self.start
    let depth = walker.depth(of: from)
    return walker.flowRoutes(from: from, depth: depth.depth, branch: depth.branch).map(
      Route.init(steps:))
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
  /// the end of a branch decides `yes`.
  ///
  /// - Returns: The route, or `nil` when no route from `start` enters `target`.
  /// - Complexity: O(*n*) in the number of states and exits.
  public func shortestRoute(to target: StateID, from start: StateID? = nil) -> Route? {
    var walker = RouteWalker(chart: self, visitLimit: 1)
    guard let steps = walker.shortestSteps(to: target, from: start ?? self.start) else {
      return nil
    }
    return Route(steps: steps)
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

/// Walks a chart's exits for `Flowchart.routes(from:cycles:)` and
/// `Flowchart.shortestRoute(to:from:)`, iteratively, so long charts do not grow the stack
/// (only nested dispatches do).
private struct RouteWalker<Context: Sendable> {
  let chart: Flowchart<Context>
  let visitLimit: Int
  /// The combinations of branch routes of each dispatch already walked.
  var combinations: [StateID: [[Route.Step]]] = [:]
  /// Each state's dispatch and branch position, for states inside a branch.
  let parents: [StateID: (dispatch: StateID, branch: Int)]

  init(chart: Flowchart<Context>, visitLimit: Int) {
    self.chart = chart
    self.visitLimit = visitLimit
    // A branch's states are those reachable from its first state without leaving it, since
    // arrows never cross a branch's boundary.
    var parents: [StateID: (dispatch: StateID, branch: Int)] = [:]
    for id in chart.states {
      for exit in chart[id].exits {
        guard let branch = exit.label.branch else { continue }
        var stack = [exit.target]
        parents[exit.target] = (id, branch)
        while let state = stack.popLast() {
          for next in chart[state].exits where next.label.branch == nil {
            guard parents[next.target] == nil else { continue }
            parents[next.target] = (id, branch)
            stack.append(next.target)
          }
        }
      }
    }
    self.parents = parents
  }

  /// How many dispatches `state` is inside, and its branch's position in the innermost.
  func depth(of state: StateID) -> (depth: Int, branch: Int?) {
    var depth = 0
    var current = state
    while let parent = parents[current] {
      depth += 1
      current = parent.dispatch
    }
    return (depth, parents[state]?.branch)
  }

  /// A step of `state`.
  func step(
    _ state: StateID, exit: Exit.Label?, decision: Decision?, depth: Int, branch: Int?
  ) -> Route.Step {
    let info = chart[state]
    return Route.Step(
      state: state, name: info.name, kind: info.kind, exit: exit, decision: decision,
      depth: depth, branch: branch, failure: nil, endsFlow: exit == nil)
  }

  /// A step of `state` whose code fails as `failure` says.
  func failingStep(
    _ state: StateID, _ failure: Route.Failure, exit: Exit.Label?, decision: Decision?,
    depth: Int, branch: Int?
  ) -> Route.Step {
    let info = chart[state]
    return Route.Step(
      state: state, name: info.name, kind: info.kind, exit: exit, decision: decision,
      depth: depth, branch: branch, failure: failure,
      endsFlow: failure.outcome == .failsRun || (failure.outcome == .retried && exit == nil))
  }

  /// The ways a state with modifiers fails, after the ways it succeeds (`succeeding`): a
  /// retry that succeeds (on each way it succeeds), each catch route after the retries run
  /// out (but a route limited to `StateTimeoutError`, which only a timeout takes), the
  /// retries running out with no catch route (the run fails: at the top level only, since
  /// in a branch the dispatch's join policy decides), and a timeout.
  func failingChoices(
    at state: StateID, succeeding: [(steps: [Route.Step], next: StateID?)], depth: Int,
    branch: Int?
  ) -> [(steps: [Route.Step], next: StateID?)] {
    guard let modifiers = chart.scriptableModifiers(of: state) else { return [] }
    var result: [(steps: [Route.Step], next: StateID?)] = []
    let retries = modifiers.retries
    // A retry of this many attempts or more is not run out on a route (`Int.max` never is).
    let runsOut = retries < Self.attemptLimit
    if retries > 0 {
      let failure = Route.Failure(attempts: 1, timesOut: false, outcome: .retried)
      for way in succeeding {
        guard let first = way.steps.first else { continue }
        let retried = failingStep(
          state, failure, exit: first.exit, decision: first.decision, depth: depth, branch: branch)
        result.append(([retried] + way.steps.dropFirst(), way.next))
      }
    }
    let failedAttempts = retries + 1
    if runsOut {
      for (position, target) in modifiers.catchTargets.enumerated()
      where !modifiers.catchesOnlyTimeouts[position] {
        let failure = Route.Failure(
          attempts: failedAttempts, timesOut: false, outcome: .caught(route: position))
        result.append(
          (
            [failingStep(state, failure, exit: nil, decision: nil, depth: depth, branch: branch)],
            target
          ))
      }
      if modifiers.catchTargets.isEmpty && retries > 0 && depth == 0 {
        let failure = Route.Failure(attempts: failedAttempts, timesOut: false, outcome: .failsRun)
        result.append(
          (
            [failingStep(state, failure, exit: nil, decision: nil, depth: depth, branch: branch)],
            nil
          )
        )
      }
    }
    if modifiers.timeout != nil {
      let attempts = modifiers.retriesTimeouts ? failedAttempts : 1
      guard attempts <= Self.attemptLimit else { return result }
      if let position = modifiers.timeoutCatch {
        let failure = Route.Failure(
          attempts: attempts, timesOut: true, outcome: .caught(route: position))
        result.append(
          (
            [failingStep(state, failure, exit: nil, decision: nil, depth: depth, branch: branch)],
            modifiers.catchTargets[position]
          ))
      } else if depth == 0 {
        let failure = Route.Failure(attempts: attempts, timesOut: true, outcome: .failsRun)
        result.append(
          (
            [failingStep(state, failure, exit: nil, decision: nil, depth: depth, branch: branch)],
            nil
          )
        )
      }
    }
    return result
  }

  /// The most attempts a route fails in a row: a retry of more never runs out on a route.
  static var attemptLimit: Int { 1000 }

  /// The ways on from `state`: the steps it adds, and the state each leads to (`nil` when
  /// the flow ends).
  mutating func choices(
    at state: StateID, depth: Int, branch: Int?
  ) -> [(steps: [Route.Step], next: StateID?)] {
    let info = chart[state]
    if info.kind == .dispatch {
      let combinations = branchCombinations(of: state, depth: depth)
      let next = info.exits.first(where: { $0.label.branch == nil })
      return combinations.map { combination in
        let head = step(
          state, exit: next?.label, decision: info.isFinal ? .done : nil, depth: depth,
          branch: branch)
        return ([head] + combination, next?.target)
      }
    }
    let succeeding: [(steps: [Route.Step], next: StateID?)]
    if info.isFinal {
      let decisions: [Decision?] =
        switch info.kind.decides {
        case .yesOrNo: [.yes, .no]
        case .key: [nil]
        case .done: [.done]
        }
      succeeding = decisions.map {
        ([step(state, exit: nil, decision: $0, depth: depth, branch: branch)], nil)
      }
    } else {
      succeeding = info.exits.map {
        ([step(state, exit: $0.label, decision: nil, depth: depth, branch: branch)], $0.target)
      }
    }
    var failing = failingChoices(
      at: state, succeeding: succeeding, depth: depth, branch: branch)
    if info.isFinal && info.kind.decides == .key {
      // A final multiple condition's keys are not listed, so its retried success cannot be
      // forced: its routes take its own decision.
      failing.removeAll { $0.steps.first?.failure?.outcome == .retried }
    }
    return succeeding + failing
  }

  /// Every combination of one route per branch of `dispatch`, branch by branch.
  mutating func branchCombinations(of dispatch: StateID, depth: Int) -> [[Route.Step]] {
    if let known = combinations[dispatch] { return known }
    var result: [[Route.Step]] = [[]]
    for exit in chart[dispatch].exits {
      guard let branch = exit.label.branch else { continue }
      let routes = flowRoutes(from: exit.target, depth: depth + 1, branch: branch)
      result = result.flatMap { prefix in routes.map { prefix + $0 } }
    }
    combinations[dispatch] = result
    return result
  }

  /// Every route of the flow from `start` to one of its ends, as steps.
  mutating func flowRoutes(from start: StateID, depth: Int, branch: Int?) -> [[Route.Step]] {
    var routes: [[Route.Step]] = []
    var visits: [StateID: Int] = [:]
    var prefix: [Route.Step] = []
    visits[start] = 1
    var stack = [
      RouteFrame(
        choices: choices(at: start, depth: depth, branch: branch), nextChoice: 0, state: start,
        prefixLength: 0)
    ]
    while let frame = stack.last {
      guard frame.nextChoice < frame.choices.count else {
        stack.removeLast()
        visits[frame.state]! -= 1
        continue
      }
      stack[stack.count - 1].nextChoice += 1
      let choice = frame.choices[frame.nextChoice]
      prefix.removeSubrange(frame.prefixLength...)
      prefix += choice.steps
      guard let next = choice.next else {
        routes.append(prefix)
        continue
      }
      guard visits[next, default: 0] < visitLimit else { continue }
      visits[next, default: 0] += 1
      stack.append(
        RouteFrame(
          choices: choices(at: next, depth: depth, branch: branch), nextChoice: 0, state: next,
          prefixLength: prefix.count))
    }
    return routes
  }

  /// The steps of the shortest route from `start` to `target`, found breadth first, or
  /// when `target` is `nil` to the nearest end of `start`'s flow.
  mutating func shortestSteps(to target: StateID?, from start: StateID) -> [Route.Step]? {
    let (startDepth, startBranch) = depth(of: start)
    if let target, depth(of: target).depth > startDepth, let parent = parents[target] {
      // Inside a branch: reach the dispatch, run the branches before the target's to their
      // ends, then go down the target's branch.
      guard var steps = shortestSteps(to: parent.dispatch, from: start) else { return nil }
      let dispatch = steps.removeLast()
      steps.append(
        step(
          dispatch.state, exit: .next, decision: nil, depth: dispatch.depth,
          branch: dispatch.branch))
      for exit in chart[parent.dispatch].exits {
        guard let branch = exit.label.branch, branch <= parent.branch else { continue }
        guard
          let inside = shortestSteps(to: branch == parent.branch ? target : nil, from: exit.target)
        else { return nil }
        steps += inside
      }
      return steps
    }
    var previous: [StateID: (state: StateID, exit: Exit.Label)] = [:]
    var queue = [start]
    var seen: Set<StateID> = [start]
    var head = 0
    var end: StateID?
    while head < queue.count {
      let state = queue[head]
      head += 1
      if state == target || (target == nil && chart[state].isFinal) {
        end = state
        break
      }
      for exit in chart[state].exits where exit.label.branch == nil {
        guard seen.insert(exit.target).inserted else { continue }
        previous[exit.target] = (state, exit.label)
        queue.append(exit.target)
      }
    }
    guard let end else { return nil }
    var path: [(state: StateID, exit: Exit.Label?)] = [(end, nil)]
    while let (state, exit) = previous[path[path.count - 1].state] {
      path.append((state, exit))
    }
    var steps: [Route.Step] = []
    for (state, exit) in path.reversed() {
      let info = chart[state]
      let isEnd = exit == nil && target == nil
      let decision: Decision? =
        !isEnd
        ? nil
        : info.kind == .condition ? .yes : info.kind == .multipleCondition ? nil : .done
      steps.append(
        Route.Step(
          state: state, name: info.name, kind: info.kind, exit: exit, decision: decision,
          depth: startDepth, branch: startBranch, failure: nil, endsFlow: isEnd))
      // A dispatch on the way runs each branch to its nearest end.
      guard info.kind == .dispatch, exit != nil || isEnd else { continue }
      for branchExit in info.exits where branchExit.label.branch != nil {
        guard let inside = shortestSteps(to: nil, from: branchExit.target) else { return nil }
        steps += inside
      }
    }
    return steps
  }
}

/// A state on the route being walked, and the ways on from it not yet tried.
private struct RouteFrame {
  var choices: [(steps: [Route.Step], next: StateID?)]
  var nextChoice: Int
  var state: StateID
  var prefixLength: Int
}
