import Flowchart
import FlowchartTesting
import Testing

/// Two loops through one state: `Step`, then `Again?` goes back (yes) or on to `Other?`,
/// which goes back too (yes) or ends (no). Each route returns to `Step` some number of times
/// *k*, each time by one of two ways, so with `cycles: c` there are 1 + 2 + … + 2^c routes.
private func twoLoops() throws -> Flowchart<Counter> {
  // swift-format-ignore
  try Flowchart<Counter> {
    Action("Step") { $0.count += 1 }
    Condition("Again?") { $0.count < 2 } yes: {
      GoTo("Step")
    } no: {
      Condition("Other?") { $0.count < 4 } yes: {
        GoTo("Step")
      } no: {
        Action("End", isFinal: true)
      }
    }
  }
}

struct RouteTests {
  @Test func theHealthWorkflowHasThreeRoutes() throws {
    let routes = try healthWorkflow().routes()
    #expect(
      routes.map(\.description) == [
        "Willing to exercise? [yes] → Lift weights → Do sit-ups [done]",
        "Willing to exercise? [no] → Injured? [yes]",
        "Willing to exercise? [no] → Injured? [no]",
      ])
  }

  @Test(arguments: [(0, 1), (1, 2), (2, 3), (5, 6)])
  func aLoopWithOneWayBackHasOneRoutePerTurn(cycles: Int, count: Int) throws {
    let routes = try retryLoop().routes(cycles: cycles)
    #expect(routes.count == count)
    // The first route goes round the most: `Fetch` and `Failed?` each turn, then `Done`.
    #expect(routes.first?.stateNames.count == 2 * cycles + 3)
  }

  @Test func aCycleTakenAtMostTwice() throws {
    let routes = try retryLoop().routes(cycles: 2)
    #expect(
      routes.map(\.description) == [
        "Fetch → Failed? [yes] → Fetch → Failed? [yes] → Fetch → Failed? [no] → Done [done]",
        "Fetch → Failed? [yes] → Fetch → Failed? [no] → Done [done]",
        "Fetch → Failed? [no] → Done [done]",
      ])
  }

  @Test(arguments: [(0, 1), (1, 3), (2, 7), (3, 15)])
  func twoWaysBackDoubleTheRoutesAtEachTurn(cycles: Int, count: Int) throws {
    #expect(try twoLoops().routes(cycles: cycles).count == count)
  }

  @Test func aDispatchMultipliesTheRoutesOfItsBranches() throws {
    // Three ways to `Sync` (free, pro, default), times one route of `Upload` and two of
    // `Has changes?`.
    let routes = try everyKindChart().routes()
    #expect(routes.count == 6)
    #expect(
      routes.first?.description
        == "Plan? [free] → Show ads → Sync { Upload [done] | Has changes? [yes] → Download [done] } → Done [done]"
    )
    #expect(
      routes.last?.description
        == "Plan? [default] → Invite team → Sync { Upload [done] | Has changes? [no] → Skip [done] } → Done [done]"
    )
  }

  @Test func routesStartAnywhere() throws {
    let chart = try everyKindChart()
    #expect(try chart.routes(fromStateNamed: "Sync").count == 2)
    // Inside a branch: the routes to the branch's ends.
    let inside = try chart.routes(fromStateNamed: "Has changes?")
    #expect(
      inside.map(\.description) == [
        "Has changes? [yes] → Download [done]", "Has changes? [no] → Skip [done]",
      ])
  }

  @Test func aNegativeCycleCountIsAnIssue() throws {
    let chart = try retryLoop()
    let issues = IssueReporting.recording {
      #expect(chart.routes(cycles: -1).count == 1)
    }
    #expect(issues.count == 1)
    #expect(issues.first?.comment.hasPrefix("routes(cycles: -1) asks for a negative") == true)
  }

  @Test func aFinalMultipleConditionEndsOneRouteWithAnyKey() throws {
    // swift-format-ignore
    let chart = try Flowchart<Counter> {
      Action("Measure") { $0.count = 2 }
      MultipleCondition("Grade", isFinal: true) { $0.count }
    }
    #expect(chart.routes().map(\.description) == ["Measure → Grade [any key]"])
  }

  @Test func routesReadAsTheirDescriptionInTestOutput() throws {
    let route = try #require(try healthWorkflow().routes().last)
    #expect(route.testDescription == "Willing to exercise? [no] → Injured? [no]")
  }

  @Test func aRouteScriptsTheConditionsItPasses() throws {
    let routes = try retryLoop().routes(cycles: 1)
    #expect(
      routes.map(\.script.description) == ["Failed? = exit yes/exit no", "Failed? = exit no"])
    let health = try healthWorkflow().routes()
    #expect(
      health.map(\.script.description) == [
        "Willing to exercise? = exit yes",
        "Willing to exercise? = exit no, Injured? = yes",
        "Willing to exercise? = exit no, Injured? = no",
      ])
  }

  @Test(arguments: try everyKindChart().routes())
  func everyRouteOfEveryKindIsTheRunItsScriptMakes(route: Route) async throws {
    let chart = try everyKindChart()
    let result = try await chart.run(with: Counter(), script: route.script)
    #expect(result.pathNames == route.stateNames)
    #expect(result.finalState == route.last.state)
    #expect(result.decision == route.last.decision)
  }

  @Test(arguments: try twoLoops().routes(cycles: 3))
  func everyRouteThroughCyclesIsTheRunItsScriptMakes(route: Route) throws {
    let result = try twoLoops().runSynchronously(with: Counter(), script: route.script)
    #expect(result.pathNames == route.stateNames)
  }

  // MARK: - Shortest routes

  @Test func theShortestRouteToAStateEndsThere() throws {
    let chart = try healthWorkflow()
    let route = try #require(try chart.shortestRoute(toStateNamed: "Do sit-ups"))
    #expect(route.description == "Willing to exercise? [yes] → Lift weights → Do sit-ups")
    #expect(route.last.exit == nil)
    #expect(route.last.decision == nil)
  }

  @Test func theShortestRouteTakesTheFewestStates() throws {
    let chart = try everyKindChart()
    // `pro` goes straight to `Sync`; `free` passes `Show ads` first.
    let route = try #require(try chart.shortestRoute(toStateNamed: "Done"))
    #expect(
      route.description
        == "Plan? [pro] → Sync { Upload [done] | Has changes? [yes] → Download [done] } → Done")
  }

  @Test func theShortestRouteIntoABranchGoesDownThatBranch() throws {
    let chart = try everyKindChart()
    let route = try #require(try chart.shortestRoute(toStateNamed: "Skip"))
    #expect(route.description == "Plan? [pro] → Sync { Upload [done] | Has changes? [no] → Skip }")
    #expect(route.stateNames == ["Plan?", "Sync", "Upload", "Has changes?", "Skip"])
  }

  @Test func theShortestRouteToTheStartIsTheStart() throws {
    let chart = try healthWorkflow()
    #expect(chart.shortestRoute(to: chart.start)?.stateNames == ["Willing to exercise?"])
  }

  @Test func noRouteLeadsToAStateOnlyAnEntryPointReaches() throws {
    // swift-format-ignore
    let chart = try Flowchart<Counter>(entryPoints: ["Resume"]) {
      Action("Start", isFinal: true)
      Action("Resume", isFinal: true)
    }
    let resume = try #require(chart.state(named: "Resume"))
    #expect(chart.shortestRoute(to: resume) == nil)
    #expect(chart.shortestRoute(to: resume, from: resume)?.stateNames == ["Resume"])
  }
}
