import Flowchart
import FlowchartTesting
import Testing

/// The testing recipe (one test per route, then complete coverage) on the order-approval
/// chart a new user writes: a catch route, a deciding wait, a dispatch with a retried
/// charge, a map.
struct OrderApprovalRecipeTests {
  @Test func theRoutesListTheCatchTheRetryAndTheWait() throws {
    let routes = try orderApproval().routes()
    expectText(
      routes.map(\.description).joined(separator: "\n"),
      matches: """
        Validate order → Amount? [small] → Fulfil { Reserve stock [done] | Charge card [done] } → Pack lines → Ship [done]
        Validate order → Amount? [small] → Fulfil { Reserve stock [done] | Charge card [fails, retried, done] } → Pack lines → Ship [done]
        Validate order → Amount? [large] → Manager approval [yes] → Fulfil { Reserve stock [done] | Charge card [done] } → Pack lines → Ship [done]
        Validate order → Amount? [large] → Manager approval [yes] → Fulfil { Reserve stock [done] | Charge card [fails, retried, done] } → Pack lines → Ship [done]
        Validate order → Amount? [large] → Manager approval [no] → Decline order [done]
        Validate order [fails, caught] → Reject invalid order [done]
        """)
    #expect(routes.allSatisfy { !$0.endsInFailure })
  }

  @Test(arguments: try orderApproval().routes())
  func eachRouteIsTheRunItsScriptMakes(route: Route) async throws {
    let chart = try orderApproval()
    let result = try await chart.run(with: Order(), script: route.script)
    #expect(result.pathNames == route.stateNames)
  }

  @Test(arguments: try orderApproval().routes())
  func eachRouteRunsWithActionsReplaced(route: Route) async throws {
    let chart = try orderApproval()
    let result = try await chart.run(with: Order(), script: route.script.replacingActions())
    #expect(result.pathNames == route.stateNames)
    #expect(result.context.log.isEmpty)
    #expect(!result.context.isCharged)
  }

  @Test func runningEveryRouteCoversTheWholeChart() async throws {
    let chart = try orderApproval()
    let coverage = Coverage(of: chart)
    for route in chart.routes() {
      _ = try await chart.run(
        with: Order(), script: route.script.replacingActions(), recordingInto: coverage)
    }
    #expect(coverage.gaps == [])
    let issues = IssueReporting.recording { coverage.expectComplete() }
    #expect(issues.isEmpty)
  }

  @Test func aMissingCatchRouteIsAGap() async throws {
    let chart = try orderApproval()
    let coverage = Coverage(of: chart)
    for route in chart.routes() where !route.description.contains("caught") {
      _ = try await chart.run(with: Order(), script: route.script, recordingInto: coverage)
    }
    let issues = IssueReporting.recording { coverage.expectComplete() }
    #expect(issues.count == 1)
    let comment = try #require(issues.first?.comment)
    #expect(comment.hasPrefix("The runs left 1 gap:"))
    #expect(comment.contains("action 'Reject invalid order'"))
    #expect(comment.contains("never entered"))
  }

  @Test func theCatchRouteIsTakenThoughTheCodeWouldNotThrow() async throws {
    let chart = try orderApproval()
    let route = try #require(chart.routes().first { $0.description.contains("caught") })
    // The order is valid: only the script makes validation fail.
    let result = try await chart.run(with: Order(), script: route.script)
    #expect(result.pathNames == ["Validate order", "Reject invalid order"])
    #expect(result.context.rejection?.contains("as the script forced it to") == true)
    #expect(result.context.log == ["rejected"])
  }

  @Test func theApprovalRouteNeedsNoValueSent() async throws {
    let chart = try orderApproval()
    let route = try #require(
      chart.routes().first { $0.description.contains("Manager approval [no]") })
    let order = Order(amount: 5000)
    let result = try await chart.run(with: order, script: route.script)
    #expect(result.finalStateName == "Decline order")
    // A live run of the scripted chart goes through the wait too, with nothing sent.
    let handle = try chart.scripted(route.script).start(with: order)
    let live = try await handle.result
    #expect(live.pathNames == route.stateNames)
  }
}
