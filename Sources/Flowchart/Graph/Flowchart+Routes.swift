// Routes: the walk. `walkedRoutes(from:cycles:)` and `shortestWalkedRoute(to:from:)` walk a
// compiled chart's exits (`RouteWalker`, iteratively), with the extra routes a state's
// modifiers add (a retried, caught or run-failing attempt, a timeout), and give each route as
// plain data (`WalkedRoute`). FlowchartTesting's `Route` wraps it for tests (its script, its
// name in test output); the `flowchart routes` command prints it, without Swift Testing.

/// One way through a chart, as the route walk finds it: the states a run enters, in order,
/// with the exit, decision or failure of each. `package` API: FlowchartTesting's `Route` and
/// the tool's `routes` command show it.
package struct WalkedRoute: Sendable, Hashable, CustomStringConvertible {
  /// One state of a route and what it took (see FlowchartTesting's `Route.Step`).
  package struct Step: Sendable, Hashable {
    /// The state.
    package let state: StateID
    /// The state's name.
    package let name: String
    /// The state's kind.
    package let kind: StateKind
    /// The exit the state takes, or `nil` when it ends its flow (or ends the route, for a
    /// route to a state).
    package let exit: Exit.Label?
    /// What the state decides when it ends its flow; `nil` for a state that takes an exit,
    /// and for a final multiple condition, whose keys the chart does not list.
    package let decision: Decision?
    /// How many dispatches the state is inside: 0 at the top level.
    package let depth: Int
    /// The position, from zero, of the dispatch branch the state is in; `nil` at the top
    /// level.
    package let branch: Int?
    /// How the state's code fails on this route; `nil` when its first attempt succeeds.
    package let failure: Failure?
    /// Whether the step ends its flow (rather than a route to a state).
    package let endsFlow: Bool

    /// The step as a route shows it: the name, then in brackets how it failed, if it did,
    /// and the decision or the exit (none for an action's `next`).
    package var text: String {
      var parts: [String] = []
      if let failure { parts.append("\(failure)") }
      if let decision {
        parts.append("\(decision)")
      } else if let exit, exit != .next {
        parts.append("\(exit)")
      } else if endsFlow && kind == .multipleCondition && failure == nil {
        parts.append("any key")
      }
      return parts.isEmpty ? name : "\(name) [\(parts.joined(separator: ", "))]"
    }
  }

  /// How a state's code fails on a route: how many attempts fail, and what follows.
  package struct Failure: Sendable, Hashable, CustomStringConvertible {
    /// What follows the failed attempts.
    package enum Outcome: Sendable, Hashable {
      /// The state's retry runs the code again, and that attempt succeeds.
      case retried
      /// The catch route at this position (from 0, in the order of the state's `.catch`
      /// modifiers) takes the error.
      case caught(route: Int)
      /// Nothing takes the error: the run fails at the state.
      case failsRun
    }

    /// How many attempts fail in a row.
    package let attempts: Int
    /// Whether the attempts time out (rather than throw).
    package let timesOut: Bool
    /// What follows them.
    package let outcome: Outcome

    /// A failure of `attempts` attempts in a row, timing out or throwing, and what follows.
    package init(attempts: Int, timesOut: Bool, outcome: Outcome) {
      self.attempts = attempts
      self.timesOut = timesOut
      self.outcome = outcome
    }

    /// `fails`, `fails 3×` or `times out`, then `retried`, `caught` or `run fails`.
    package var description: String {
      let what = timesOut ? "times out" : "fails"
      let count = attempts == 1 ? "" : " \(attempts)×"
      let then =
        switch outcome {
        case .retried: "retried"
        case .caught: "caught"
        case .failsRun: "run fails"
        }
      return "\(what)\(count), \(then)"
    }
  }

  /// The steps, in the order a run enters the states: a dispatch is followed by the steps
  /// of each of its branches, branch by branch, then by the state after it.
  package let steps: [Step]

  /// A route of `steps`.
  package init(steps: [Step]) {
    self.steps = steps
  }

  /// The names of the states, in order.
  package var stateNames: [String] { steps.map(\.name) }

  /// The last step of the top-level flow: the state the route ends at.
  package var last: Step {
    steps.last(where: { $0.depth == steps[0].depth }) ?? steps[steps.count - 1]
  }

  /// Whether a run down the route fails: a state's failure that nothing catches ends it.
  package var endsInFailure: Bool {
    steps.contains { $0.failure?.outcome == .failsRun }
  }

  /// The steps joined by ` → `, decisions in brackets, branches in braces separated by
  /// bars (FlowchartTesting's `Route.description`).
  package var description: String {
    guard let first = steps.first else { return "" }
    var text = first.text
    // The branch each open level of braces is in, innermost last.
    var branches: [Int?] = [first.branch]
    for step in steps.dropFirst() {
      let depth = first.depth + branches.count - 1
      if step.depth > depth {
        text += " { "
        branches.append(step.branch)
      } else {
        for _ in step.depth..<depth {
          text += " }"
          branches.removeLast()
        }
        if step.branch != branches[branches.count - 1] {
          text += " | "
          branches[branches.count - 1] = step.branch
        } else {
          text += " → "
        }
      }
      text += step.text
    }
    text += String(repeating: " }", count: branches.count - 1)
    return text
  }
}

extension Flowchart {
  /// Every route from `start` (the chart's start by default) to each way its flow can end,
  /// each cycle taken at most `cycles` times (a negative count counts as 0). How routes are
  /// counted is documented on FlowchartTesting's `Flowchart.routes(from:cycles:)`, which
  /// wraps this walk.
  package func walkedRoutes(from start: StateID? = nil, cycles: Int = 0) -> [WalkedRoute] {
    var walker = RouteWalker(chart: self, visitLimit: max(cycles, 0) + 1)
    let from = start ?? self.start
    let depth = walker.depth(of: from)
    return walker.flowRoutes(from: from, depth: depth.depth, branch: depth.branch).map(
      WalkedRoute.init(steps:))
  }

  /// The shortest route from `start` (the chart's start by default) to `target`, ending with
  /// `target` itself; `nil` when no route enters it. Documented on FlowchartTesting's
  /// `Flowchart.shortestRoute(to:from:)`, which wraps it.
  package func shortestWalkedRoute(to target: StateID, from start: StateID? = nil) -> WalkedRoute? {
    var walker = RouteWalker(chart: self, visitLimit: 1)
    guard let steps = walker.shortestSteps(to: target, from: start ?? self.start) else {
      return nil
    }
    return WalkedRoute(steps: steps)
  }
}

/// Walks a chart's exits for `Flowchart.walkedRoutes(from:cycles:)` and
/// `Flowchart.shortestWalkedRoute(to:from:)`, iteratively, so long charts do not grow the stack
/// (only nested dispatches do).
private struct RouteWalker<Context: Sendable> {
  let chart: Flowchart<Context>
  let visitLimit: Int
  /// The combinations of branch routes of each dispatch already walked.
  var combinations: [StateID: [[WalkedRoute.Step]]] = [:]
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
  ) -> WalkedRoute.Step {
    let info = chart[state]
    return WalkedRoute.Step(
      state: state, name: info.name, kind: info.kind, exit: exit, decision: decision,
      depth: depth, branch: branch, failure: nil, endsFlow: exit == nil)
  }

  /// A step of `state` whose code fails as `failure` says.
  func failingStep(
    _ state: StateID, _ failure: WalkedRoute.Failure, exit: Exit.Label?, decision: Decision?,
    depth: Int, branch: Int?
  ) -> WalkedRoute.Step {
    let info = chart[state]
    return WalkedRoute.Step(
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
    at state: StateID, succeeding: [(steps: [WalkedRoute.Step], next: StateID?)], depth: Int,
    branch: Int?
  ) -> [(steps: [WalkedRoute.Step], next: StateID?)] {
    guard let modifiers = chart.scriptableModifiers(of: state) else { return [] }
    var result: [(steps: [WalkedRoute.Step], next: StateID?)] = []
    let retries = modifiers.retries
    // A retry of this many attempts or more is not run out on a route (`Int.max` never is).
    let runsOut = retries < Self.attemptLimit
    if retries > 0 {
      let failure = WalkedRoute.Failure(attempts: 1, timesOut: false, outcome: .retried)
      for way in succeeding {
        guard let first = way.steps.first else { continue }
        let retried = failingStep(
          state, failure, exit: first.exit, decision: first.decision, depth: depth, branch: branch)
        result.append(([retried] + way.steps.dropFirst(), way.next))
      }
    }
    let failedAttempts = retries + 1
    let caught = caughtFailures(of: modifiers)
    for (failure, target) in caught.afterRetries {
      result.append(
        (
          [failingStep(state, failure, exit: nil, decision: nil, depth: depth, branch: branch)],
          target
        ))
    }
    if runsOut {
      if modifiers.catchTargets.isEmpty && retries > 0 && depth == 0 {
        let failure = WalkedRoute.Failure(
          attempts: failedAttempts, timesOut: false, outcome: .failsRun)
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
      if let (failure, target) = caught.timeout {
        result.append(
          (
            [failingStep(state, failure, exit: nil, decision: nil, depth: depth, branch: branch)],
            target
          ))
      } else if depth == 0 {
        let failure = WalkedRoute.Failure(attempts: attempts, timesOut: true, outcome: .failsRun)
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

  /// The ways a state with `modifiers` fails into one of its catch routes: each route that
  /// takes a thrown error once the retries run out (not a route limited to
  /// `StateTimeoutError`, which only a timeout takes; none when the retries never run out on
  /// a route), and the route that takes the timeout; each with the failure that takes it and
  /// the state the route leads to.
  func caughtFailures(
    of modifiers: ScriptableModifiers
  ) -> (
    afterRetries: [(failure: WalkedRoute.Failure, target: StateID)],
    timeout: (failure: WalkedRoute.Failure, target: StateID)?
  ) {
    let failedAttempts = modifiers.retries + 1
    var afterRetries: [(failure: WalkedRoute.Failure, target: StateID)] = []
    if modifiers.retries < Self.attemptLimit {
      for (position, target) in modifiers.catchTargets.enumerated()
      where !modifiers.catchesOnlyTimeouts[position] {
        let failure = WalkedRoute.Failure(
          attempts: failedAttempts, timesOut: false, outcome: .caught(route: position))
        afterRetries.append((failure, target))
      }
    }
    var timeout: (failure: WalkedRoute.Failure, target: StateID)?
    if modifiers.timeout != nil, let position = modifiers.timeoutCatch {
      let attempts = modifiers.retriesTimeouts ? failedAttempts : 1
      if attempts <= Self.attemptLimit {
        timeout = (
          WalkedRoute.Failure(
            attempts: attempts, timesOut: true, outcome: .caught(route: position)),
          modifiers.catchTargets[position]
        )
      }
    }
    return (afterRetries, timeout)
  }

  /// The ways on from `state`: the steps it adds, and the state each leads to (`nil` when
  /// the flow ends).
  mutating func choices(
    at state: StateID, depth: Int, branch: Int?
  ) -> [(steps: [WalkedRoute.Step], next: StateID?)] {
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
    let succeeding: [(steps: [WalkedRoute.Step], next: StateID?)]
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
  mutating func branchCombinations(of dispatch: StateID, depth: Int) -> [[WalkedRoute.Step]] {
    if let known = combinations[dispatch] { return known }
    var result: [[WalkedRoute.Step]] = [[]]
    for exit in chart[dispatch].exits {
      guard let branch = exit.label.branch else { continue }
      let routes = flowRoutes(from: exit.target, depth: depth + 1, branch: branch)
      result = result.flatMap { prefix in routes.map { prefix + $0 } }
    }
    combinations[dispatch] = result
    return result
  }

  /// Every route of the flow from `start` to one of its ends, as steps.
  mutating func flowRoutes(from start: StateID, depth: Int, branch: Int?) -> [[WalkedRoute.Step]] {
    var routes: [[WalkedRoute.Step]] = []
    var visits: [StateID: Int] = [:]
    var prefix: [WalkedRoute.Step] = []
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
  mutating func shortestSteps(to target: StateID?, from start: StateID) -> [WalkedRoute.Step]? {
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
    // Breadth first over the flow's arrows, then its catch routes: a route fails into a
    // catch route only where no arrow reaches the state as soon.
    var previous: [StateID: (state: StateID, way: ShortestWay)] = [:]
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
        previous[exit.target] = (state, .exit(exit.label))
        queue.append(exit.target)
      }
      guard let modifiers = chart.scriptableModifiers(of: state) else { continue }
      let caught = caughtFailures(of: modifiers)
      for (failure, next) in caught.afterRetries + (caught.timeout.map { [$0] } ?? []) {
        guard seen.insert(next).inserted else { continue }
        previous[next] = (state, .caught(failure))
        queue.append(next)
      }
    }
    guard let end else { return nil }
    var path: [(state: StateID, way: ShortestWay?)] = [(end, nil)]
    while let (state, way) = previous[path[path.count - 1].state] {
      path.append((state, way))
    }
    var steps: [WalkedRoute.Step] = []
    for (state, way) in path.reversed() {
      let info = chart[state]
      let exit: Exit.Label?
      switch way {
      case .caught(let failure):
        steps.append(
          failingStep(
            state, failure, exit: nil, decision: nil, depth: startDepth, branch: startBranch))
        continue
      case .exit(let label): exit = label
      case nil: exit = nil
      }
      let isEnd = exit == nil && target == nil
      let decision: Decision? =
        !isEnd
        ? nil
        : info.kind == .condition ? .yes : info.kind == .multipleCondition ? nil : .done
      steps.append(
        WalkedRoute.Step(
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

/// How a shortest route leaves a state: by an arrow, or by failing into a catch route.
private enum ShortestWay {
  case exit(Exit.Label)
  case caught(WalkedRoute.Failure)
}

/// A state on the route being walked, and the ways on from it not yet tried.
private struct RouteFrame {
  var choices: [(steps: [WalkedRoute.Step], next: StateID?)]
  var nextChoice: Int
  var state: StateID
  var prefixLength: Int
}
