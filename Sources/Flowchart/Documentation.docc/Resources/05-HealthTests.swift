import Flowchart
import FlowchartTesting
import Testing

struct HealthWorkflowTests {
  @Test func theTreeKeepsItsShape() throws {
    expectTree(
      try healthWorkflow(),
      matches: """
        Willing to exercise? (S)
        Y- Lift weights (A)
        |  Do sit-ups (A) !
        N- Injured? (S) !
        """)
  }

  @Test(arguments: try healthWorkflow().routes())
  func everyRouteEndsWithAVerdict(route: Route) async throws {
    let chart = try healthWorkflow()
    let result = try await chart.run(with: Subject(), script: route.script)
    #expect(result.pathNames == route.stateNames)
    #expect(result.outcome(as: Verdict.self) != nil)
  }

  @Test func theRoutesTakeEveryExit() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    for route in chart.routes() {
      _ = try await chart.run(with: Subject(), script: route.script, recordingInto: coverage)
    }
    coverage.expectComplete()
  }
}
