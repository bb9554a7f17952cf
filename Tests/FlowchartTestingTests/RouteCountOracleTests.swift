import Flowchart
import FlowchartTesting
import Testing

/// The context of the random charts: the answers their conditions give, in turn.
private struct Answers: Sendable {
  var answers: [Bool]
  var next = 0
}

/// Thrown by a condition when the answers run out: the oracle then tries both.
private struct OutOfAnswers: Error {}

/// One state of a random chart.
private enum PlannedState {
  case action(isFinal: Bool, goTo: Int?)
  case condition(isFinal: Bool, yes: Int, no: Int)
}

/// A random chart of 2 to 6 states: actions (some going on to a random state), conditions
/// whose exits go to random states (loops included), and final actions and conditions.
private func randomPlan(_ generator: inout SeededGenerator) -> [PlannedState] {
  let count = Int.random(in: 2...6, using: &generator)
  return (0..<count).map { index in
    let isLast = index == count - 1
    let isFinal = isLast || Int.random(in: 0..<5, using: &generator) == 0
    let target = { (generator: inout SeededGenerator) in
      Int.random(in: 0..<count, using: &generator)
    }
    if Bool.random(using: &generator) {
      return .condition(isFinal: isFinal, yes: target(&generator), no: target(&generator))
    }
    let goTo = !isFinal && Bool.random(using: &generator) ? target(&generator) : nil
    return .action(isFinal: isFinal, goTo: goTo)
  }
}

private func answer(_ answers: inout Answers) throws -> Bool {
  guard answers.next < answers.answers.count else { throw OutOfAnswers() }
  answers.next += 1
  return answers.answers[answers.next - 1]
}

private func chart(_ plan: [PlannedState]) throws -> Flowchart<Answers> {
  try Flowchart<Answers> {
    for (index, state) in plan.enumerated() {
      switch state {
      case .action(let isFinal, let goTo):
        Action("S\(index)", isFinal: isFinal)
        if let goTo { GoTo("S\(goTo)") }
      case .condition(true, _, _):
        Condition("S\(index)", isFinal: true) { try answer(&$0) }
      case .condition(false, let yes, let no):
        Condition("S\(index)") {
          try answer(&$0)
        } yes: {
          GoTo("S\(yes)")
        } no: {
          GoTo("S\(no)")
        }
      }
    }
  }
}

/// Every route by brute force: runs the chart with every sequence of answers, longer and
/// longer, and keeps the runs that end without entering any state more than `limit` times,
/// each as the states it entered and the answers it used.
private func bruteForceRoutes(of chart: Flowchart<Answers>, limit: Int) -> [String] {
  func withinLimit(_ names: [String]) -> Bool {
    Dictionary(names.map { ($0, 1) }, uniquingKeysWith: +).values.allSatisfy { $0 <= limit }
  }
  var routes: [String] = []
  var pending: [[Bool]] = [[]]
  while let answers = pending.popLast() {
    do {
      let result = try chart.runSynchronously(with: Answers(answers: answers))
      guard withinLimit(result.pathNames), result.context.next == answers.count else { continue }
      routes.append("\(result.pathNames) \(answers)")
    } catch {
      guard error.underlyingError is OutOfAnswers, withinLimit(error.pathNames) else { continue }
      pending.append(answers + [true])
      pending.append(answers + [false])
    }
  }
  return routes
}

struct RouteCountOracleTests {
  @Test func routesAgreeWithABruteForceCountOnRandomCharts() throws {
    var compiled = 0
    for seed in UInt64(0)..<600 {
      var generator = SeededGenerator(seed: seed)
      let plan = randomPlan(&generator)
      // Random charts may have unreachable states or loops with no way out: skip those.
      guard let chart = try? chart(plan) else { continue }
      compiled += 1
      for cycles in 0...2 {
        // A route and a run agree when they enter the same states and answer the same.
        let routes = chart.routes(cycles: cycles).map { route in
          let answers = route.steps.filter { $0.kind == .condition }.map {
            $0.exit == .yes || $0.decision == .yes
          }
          return "\(route.stateNames) \(answers)"
        }
        let oracle = bruteForceRoutes(of: chart, limit: cycles + 1)
        #expect(
          routes.sorted() == oracle.sorted(),
          "seed \(seed), cycles \(cycles):\n\(chart)")
        #expect(Set(routes).count == routes.count, "seed \(seed): a route is listed twice")
      }
    }
    // Enough of the random charts compile for the comparison to mean something.
    #expect(compiled >= 100)
  }
}
