import Flowchart
import FlowchartTesting
import Testing

/// The Health workflow's tests, on the fixture whose exercises yield instead of sleeping, so
/// that their code runs; `TestingArticleTests` runs the article's own recipe on its sleeping
/// chart.
struct HealthWorkflowTests {
  // One test per route: the script forces the decisions, the actions run their own code.
  @Test(arguments: try healthWorkflow().routes())
  func everyRouteEndsWithAnOutcome(route: Route) async throws {
    let chart = try healthWorkflow()
    let result = try await chart.run(with: Subject(), script: route.script)
    #expect(result.pathNames == route.stateNames)
    #expect(result.decision == route.last.decision)
    #expect(outcome(of: result) != nil)
  }

  @Test func theRoutesTakeEveryExit() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    for route in chart.routes() {
      _ = try await chart.run(with: Subject(), script: route.script, recordingInto: coverage)
    }
    coverage.expectComplete()
  }

  @Test func theTreeIsTheGoldenTree() throws {
    expectTree(try healthWorkflow(), matchesFile: "Golden/health.txt")
  }

  @Test func anUnwillingInjuredSubjectIsInconclusive() async throws {
    let chart = try healthWorkflow()
    // The subject says yes to both; the script says otherwise.
    let subject = Subject(isWillingToExercise: true, isInjured: false)
    let script: Script = ["Willing to exercise?": .no, "Injured?": .yes]
    let result = try await chart.run(with: subject, script: script)
    #expect(outcome(of: result) == .inconclusive)
  }

  @Test func skippingTheExercisesRunsWithoutAwait() throws {
    let chart = try healthWorkflow()
    let script: Script = ["Lift weights": .done, "Do sit-ups": .done]
    let result = try chart.runSynchronously(
      with: Subject(isWillingToExercise: true), script: script)
    #expect(outcome(of: result) == .healthy)
    #expect(result.context.log.isEmpty)
  }

  @Test func theShortestWayToSitUps() throws {
    let route = try #require(try healthWorkflow().shortestRoute(toStateNamed: "Do sit-ups"))
    #expect(route.stateNames == ["Willing to exercise?", "Lift weights", "Do sit-ups"])
  }
}
