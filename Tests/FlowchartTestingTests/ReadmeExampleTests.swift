import Flowchart
import FlowchartTesting
import Testing

/// The examples of the README's "Testing your flowcharts" section, as written there.
struct ReadmeExampleTests {
  @Test(arguments: try healthWorkflow().routes())
  func everyRouteEndsWithAnOutcome(route: Route) async throws {
    let result = try await healthWorkflow().run(with: Subject(), script: route.script)
    #expect(result.pathNames == route.stateNames)
  }

  @Test func anUnwillingInjuredSubjectIsInconclusive() async throws {
    let script: Script = ["Willing to exercise?": .no, "Injured?": .yes]
    let result = try await healthWorkflow().run(with: Subject(), script: script)
    #expect(result.finalStateName == "Injured?" && result.decision == .yes)
  }

  @Test func theRoutesTakeEveryExit() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    for route in chart.routes() {
      _ = try await chart.run(with: Subject(), script: route.script, recordingInto: coverage)
    }
    coverage.expectComplete()
  }

  @Test func routesNameTheirTestCases() throws {
    #expect(
      try healthWorkflow().routes().map(\.testDescription).contains(
        "Willing to exercise? [no] → Injured? [yes]"))
  }
}
