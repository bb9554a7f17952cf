import Flowchart
import FlowchartFiles

extension Tool {
  /// The `routes` command: every route through a chart (the core's route walk, the one
  /// FlowchartTesting's `Flowchart.routes(cycles:)` wraps, so the tool does not link Swift
  /// Testing), with the `--decide` values that drive a run down each.
  static let routesCommand = CommandSpec(
    name: "routes", abstract: "List every route through a chart, with its decisions.",
    discussion: """
      Lists the routes FlowchartTesting finds through the chart, one per line, as a test
      names them: the states a run enters, each decision in brackets, a dispatch's
      branches in braces, a state's failures (`fails, retried`) as its modifiers allow.
      A route enters each state at most --cycles + 1 times.

      With --json, writes an array with one object per route: "route" (the line above),
      "states" (the names a run enters, as run prints its path), "decide" (the --decide
      values that force the route's decisions, in visit order: give them to `flowchart
      run` in that order, and a state named more than once takes one per visit),
      "fail" (the --fail values that make its states fail as it does, one per attempt
      in order, `none` for an attempt that runs normally: give them to `flowchart run`
      with the --decide values), "endsInFailure", "sends" (the waiting states it passes,
      each needing a value from run --send), and "decidable": false, with "why", when
      --decide and --fail cannot drive it (a waiting state decides from its value, a
      subflow's exit comes from states of its chart that decide from data). A subflow's
      exit is forced by the decisions of its chart's states bound to code, by name. A
      state's own code may still go another way: a built-in failure fails whatever is
      decided.
      """,
    arguments: [
      ArgumentSpec(name: "file", help: "The chart file, JSON (.json) or XML (.xml).")
    ],
    options: [
      OptionSpec(
        name: "--cycles", valueName: "n",
        help:
          "How many times a route may come back to a state it entered: 0 or more. A loop adds a route per turn.",
        defaultValue: "0"),
      OptionSpec(name: "--json", help: "Write the routes as JSON, with their decisions."),
    ])

  /// `flowchart routes <file> [--cycles <n>] [--json]`.
  static func listRoutes(_ path: String, cycles cyclesText: String?, json: Bool) -> Outcome {
    var outcome = Outcome()
    let cycles: Int
    if let cyclesText {
      guard let count = Int(cyclesText), count >= 0 else {
        outcome.errorOutput = Help.text(
          of: UsageError(
            message:
              "The value '\(quotedArgument(cyclesText))' is invalid for '--cycles <n>': give how many times a route may come back to a state, a whole number from 0, as in --cycles 1.",
            command: "routes"), commands: commands)
        outcome.exitCode = .usageError
        return outcome
      }
      cycles = count
    } else {
      cycles = 0
    }
    let inner = InnerDecisions()
    guard let chart = load(path, decisions: inner, reportingTo: &outcome) else { return outcome }
    let routes = chart.walkedRoutes(cycles: cycles)
    guard json else {
      for route in routes { outcome.say(route.description) }
      return outcome
    }
    let objects = routes.map { route in
      var fields: [String: ChartValue] = [
        "route": .string(route.description),
        "states": .array(route.stateNames.map(ChartValue.string)),
        "endsInFailure": .bool(route.endsInFailure),
      ]
      let (decide, why) = forcing(of: route, in: chart, inner: inner)
      fields["decide"] = .array(decide.map(ChartValue.string))
      fields["fail"] = .array(failures(of: route).map(ChartValue.string))
      let waits = route.steps.filter { $0.kind == .waiting }.map(\.name)
      if !waits.isEmpty { fields["sends"] = .array(waits.map(ChartValue.string)) }
      fields["decidable"] = .bool(why == nil)
      if let why { fields["why"] = .string(why) }
      return "  " + ChartValue.object(fields).jsonText
    }
    outcome.output =
      objects.isEmpty ? "[]\n" : "[\n" + objects.joined(separator: ",\n") + "\n]\n"
    return outcome
  }

  /// The `--decide` values that force the decisions of `route`, in the order a run visits
  /// its states (one for each visit of a condition or multiple condition), and why they
  /// cannot drive a run down it, if they cannot.
  ///
  /// A subflow that takes an exit on the route is driven down the first route of its chart
  /// that ends so (a final condition deciding its yes or no, the final state its key names),
  /// with the decisions of that route's states bound to code, which `--decide` reaches by
  /// name (`inner` knows them).
  static func forcing<Context: Sendable>(
    of route: WalkedRoute, in chart: Flowchart<Context>, inner: InnerDecisions
  ) -> (decide: [String], why: String?) {
    var decide: [String] = []
    for step in route.steps {
      // A failure that is not retried ends the state's visit without a decision; `--fail`
      // forces it (``failures(of:)``).
      if let failure = step.failure, failure.outcome != .retried { continue }
      switch step.kind.code {
      case .condition, .multipleCondition:
        if let exit = step.exit {
          let decision = exit == .default ? defaultKey(of: step.state, in: chart) : "\(exit)"
          decide.append("\(step.name)=\(decision)")
        } else if let made = step.decision {
          decide.append("\(step.name)=\(made)")
        } else {
          // A final multiple condition ends its route whatever key it decides.
          decide.append("\(step.name)=any")
        }
      case .waiting:
        // A waiting state that only applies its value goes on whatever value it is sent.
        guard (step.exit ?? .next) == .next, (step.decision ?? .done) == .done else {
          return (
            decide,
            "waiting state '\(step.name)' decides from the value sent to it: --decide cannot force it"
          )
        }
      case .subflow:
        let exit = step.exit ?? .next
        guard exit != .next else { continue }
        let keys = chart[step.state].exits.compactMap(\.label.key)
        let visitor = SubflowForcing(exit: exit, keys: keys, inner: inner)
        guard let forced = chart.visitSubflowChart(of: step.state, visitor) ?? nil else {
          return (
            decide,
            "subflow '\(step.name)' takes its \(exit) exit only by decisions of its chart that --decide cannot force"
          )
        }
        decide += forced
      case .action, .dispatch, .map, .delay:
        continue
      }
    }
    return (decide, nil)
  }

  /// The `--fail` values that make the states of `route` fail as it does, in the order of
  /// their attempts: a failing step gives one value per failed attempt (`State=error`,
  /// `State=catchN` for the catch route it reaches, `State=timeout`), and a step of a state
  /// that fails later on the route (or the attempt a retry makes good) gives `State=none`,
  /// so that each attempt takes its own value; a state's trailing `none`s are left out.
  static func failures(of route: WalkedRoute) -> [String] {
    let failing = Set(route.steps.filter { $0.failure != nil }.map(\.name))
    var values: [(name: String, how: ForcedAttempt)] = []
    for step in route.steps where failing.contains(step.name) {
      guard let failure = step.failure else {
        values.append((step.name, .normal))
        continue
      }
      let how: ForcedAttempt
      switch failure.outcome {
      case .caught(let position) where !failure.timesOut: how = .error(catchRoute: position)
      case .retried, .caught, .failsRun: how = failure.timesOut ? .timeout : .error(catchRoute: nil)
      }
      values += Array(repeating: (step.name, how), count: failure.attempts)
      if failure.outcome == .retried { values.append((step.name, .normal)) }
    }
    // Drop each state's `none`s after its last failure: those attempts run normally anyway.
    var failsLater: Set<String> = []
    var kept: [String] = []
    for (name, how) in values.reversed() {
      guard how != .normal || failsLater.contains(name) else { continue }
      failsLater.insert(name)
      kept.append("\(name)=\(how.text)")
    }
    return kept.reversed()
  }

  /// A key that takes the default exit of the multiple condition `state`: `default`, or
  /// `default` followed by as many `_` as makes it no key of its exits.
  private static func defaultKey<Context: Sendable>(
    of state: StateID, in chart: Flowchart<Context>
  ) -> String {
    let keys = Set(chart[state].exits.compactMap(\.label.key))
    var key = "default"
    while keys.contains(key) { key += "_" }
    return key
  }
}

/// The `--decide` values that make a subflow's chart end so that the subflow takes `exit`:
/// those of the chart's first route that ends so and that decisions alone drive, when each
/// state it decides is bound to code (a stand-in `--decide` reaches by name); `nil` when
/// there is none.
private struct SubflowForcing: ExportedChartVisitor {
  /// The exit the subflow takes on the route.
  let exit: Exit.Label
  /// The keys of the subflow's exits, for its default exit.
  let keys: [String]
  let inner: InnerDecisions

  func visit<Element: Sendable>(_ chart: Flowchart<Element>) -> [String]? {
    for route in chart.walkedRoutes() where ends(route) {
      let (decide, why) = Tool.forcing(of: route, in: chart, inner: inner)
      // `--fail` reaches the states of the chart itself only.
      guard why == nil, !route.steps.contains(where: { $0.failure != nil }) else { continue }
      // A state of the subflow's chart that decides from data, not by code, cannot be
      // forced by name from the outer chart.
      let names = decide.map { String($0[..<($0.lastIndex(of: "=") ?? $0.endIndex)]) }
      guard names.allSatisfy({ inner.standIn(named: $0) != nil }) else { continue }
      return decide
    }
    return nil
  }

  /// Whether the subflow takes ``exit`` when its chart ends as `route` does.
  private func ends(_ route: WalkedRoute) -> Bool {
    let last = route.last
    if exit == .yes { return last.decision == .yes }
    if exit == .no { return last.decision == .no }
    if exit == .default { return !keys.contains(last.name) }
    if let key = exit.key { return last.name == key }
    return true
  }
}
