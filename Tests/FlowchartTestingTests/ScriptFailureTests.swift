import Flowchart
import FlowchartTesting
import Testing

/// Routes and scripts through states with modifiers: retries that succeed and that run out,
/// catch routes, timeouts, all forced without the states' code failing and without waiting.
struct ScriptFailureTests {
  struct Upload: Sendable {
    var attempts = 0
    var failure: String?
  }

  struct NetworkDown: Error {}

  /// A top-level retry with no catch route, a long backoff and a long timeout.
  static func uploader() throws -> Flowchart<Upload> {
    try Flowchart<Upload> {
      Action("Upload") { $0.attempts += 1 }
        .timeout(.seconds(3600))
        .retry(2, backoff: .fixed(.seconds(3600)))
      Action("Done", isFinal: true)
    }
  }

  @Test func aRetryThatSucceedsAndOneThatRunsOutAreRoutes() throws {
    let routes = try Self.uploader().routes()
    #expect(
      routes.map(\.description) == [
        "Upload → Done [done]",
        "Upload [fails, retried] → Done [done]",
        "Upload [fails 3×, run fails]",
        "Upload [times out 3×, run fails]",
      ])
    #expect(routes.map(\.endsInFailure) == [false, false, true, true])
    #expect(
      routes[2].steps[0].failure
        == Route.Failure(attempts: 3, timesOut: false, outcome: .failsRun))
  }

  @Test func aRetriedRouteRunsItsCodeOnceWithoutWaiting() async throws {
    let chart = try Self.uploader()
    let route = try Self.uploader().routes()[1]
    // The backoff is an hour: the scripted retry does not wait for it.
    let result = try await chart.run(with: Upload(), script: route.script)
    #expect(result.pathNames == ["Upload", "Done"])
    #expect(result.context.attempts == 1)
  }

  @Test func retriesThatRunOutFailTheRun() async throws {
    let chart = try Self.uploader()
    let route = try Self.uploader().routes()[2]
    let error = try await #require(throws: RunError.self) {
      try await chart.run(with: Upload(), script: route.script)
    }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Upload")
    #expect("\(error)".contains("its code failed, as the script forced it to"))
    #expect("\(error)".contains("(It failed all 3 attempts.)"))
  }

  @Test func aForcedTimeoutDoesNotWait() async throws {
    let chart = try Self.uploader()
    let route = try Self.uploader().routes()[3]
    let error = try await #require(throws: RunError.self) {
      try await chart.run(with: Upload(), script: route.script)
    }
    #expect(error.kind == .timedOut)
    #expect(error.underlyingError is StateTimeoutError)
  }

  /// Catch routes: a typed one for timeouts, and one for anything else.
  static func fetcher() throws -> Flowchart<Upload> {
    try Flowchart<Upload> {
      Condition("Fetch fresh?") { _ in
        try await Task.sleep(for: .seconds(3600))
        return true
      } yes: {
        Action("Use fresh", isFinal: true)
      } no: {
        Action("Use stale", isFinal: true)
      }
      .timeout(.seconds(5))
      .catch(StateTimeoutError.self, goTo: "Use cache")
      .catch(goTo: "Report") { upload, error in upload.failure = "\(error)" }
      Action("Use cache", isFinal: true)
      Action("Report", isFinal: true)
    }
  }

  @Test func eachCatchRouteAndTheTimeoutAreRoutes() async throws {
    let chart = try Self.fetcher()
    let routes = chart.routes()
    #expect(
      routes.map(\.description) == [
        "Fetch fresh? [yes] → Use fresh [done]",
        "Fetch fresh? [no] → Use stale [done]",
        "Fetch fresh? [fails, caught] → Report [done]",
        "Fetch fresh? [times out, caught] → Use cache [done]",
      ])
    let coverage = Coverage(of: chart)
    for route in routes {
      let result = try await chart.run(
        with: Upload(), script: route.script, recordingInto: coverage)
      #expect(result.pathNames == route.stateNames)
    }
    #expect(coverage.isComplete, "\(coverage.report)")
  }

  @Test func aForcedFailureTakesTheCatchRouteItIsFor() async throws {
    let chart = try Self.fetcher()
    // The first route takes only timeouts; the script's failure still goes to it when
    // the script says so, and to the second otherwise.
    let first = try await chart.run(
      with: Upload(), script: Script().failing("Fetch fresh?", catchRoute: 0))
    #expect(first.finalStateName == "Use cache")
    let second = try await chart.run(with: Upload(), script: Script().failing("Fetch fresh?"))
    #expect(second.finalStateName == "Use cache")
    let report = try await chart.run(
      with: Upload(), script: Script().failing("Fetch fresh?", catchRoute: 1))
    #expect(report.finalStateName == "Report")
    #expect(report.context.failure?.contains("as the script forced it to") == true)
    let timedOut = try await chart.run(with: Upload(), script: Script().timingOut("Fetch fresh?"))
    #expect(timedOut.finalStateName == "Use cache")
  }

  @Test func aWaitThatTimesOutIsARouteThatNeedsNoValueAndNoClock() async throws {
    let chart = try Flowchart<Upload> {
      Wait("Approval", for: Bool.self) { _, approved in
        approved
      } yes: {
        Action("Publish", isFinal: true)
      } no: {
        Action("Discard", isFinal: true)
      }
      .timeout(.seconds(86_400))
      .catch(StateTimeoutError.self, goTo: "Escalate")
      Action("Escalate", isFinal: true)
    }
    let routes = chart.routes()
    #expect(
      routes.map(\.description) == [
        "Approval [yes] → Publish [done]",
        "Approval [no] → Discard [done]",
        "Approval [times out, caught] → Escalate [done]",
      ])
    let coverage = Coverage(of: chart)
    for route in routes {
      let result = try await chart.run(
        with: Upload(), script: route.script, recordingInto: coverage)
      #expect(result.pathNames == route.stateNames)
    }
    #expect(coverage.isComplete, "\(coverage.report)")
  }

  @Test func theShortestRouteToAStateOnlyACatchRouteReachesFailsIntoIt() async throws {
    let chart = try Self.fetcher()
    let report = try #require(try chart.shortestRoute(toStateNamed: "Report"))
    #expect(report.description == "Fetch fresh? [fails, caught] → Report")
    let cache = try #require(try chart.shortestRoute(toStateNamed: "Use cache"))
    #expect(cache.description == "Fetch fresh? [times out, caught] → Use cache")
    for route in [report, cache] {
      let result = try await chart.run(with: Upload(), script: route.script)
      #expect(result.pathNames == route.stateNames)
    }
  }

  @Test func theShortestRoutePrefersAnArrowToACatchRoute() throws {
    let arrow = try Flowchart<Upload> {
      Action("Upload") { $0.attempts += 1 }
        .retry(2)
        .catch(goTo: "Done")
      Action("Done", isFinal: true)
    }
    let done = try #require(try arrow.shortestRoute(toStateNamed: "Done"))
    #expect(done.description == "Upload → Done")
    let chart = try Flowchart<Upload> {
      Action("Upload") { $0.attempts += 1 }
        .retry(2)
        .catch(goTo: "Report")
      Action("Done", isFinal: true)
      Action("Report", isFinal: true)
    }
    let report = try #require(try chart.shortestRoute(toStateNamed: "Report"))
    #expect(report.description == "Upload [fails 3×, caught] → Report")
    let result = try chart.runSynchronously(with: Upload(), script: report.script)
    #expect(result.pathNames == ["Upload", "Report"])
  }

  @Test func aScriptedChartWithRetriesRunsSynchronously() throws {
    let chart = try Flowchart<Upload> {
      Action("Upload") { $0.attempts += 1 }
        .retry(1)
        .catch(goTo: "Report")
      Action("Done", isFinal: true)
      Action("Report", isFinal: true)
    }
    let script = Script().failing("Upload", times: 2)
    let result = try chart.runSynchronously(with: Upload(), script: script)
    #expect(result.pathNames == ["Upload", "Report"])
    #expect(result.context.attempts == 0)
  }

  @Test func forcedFailuresThatDoNotFitTheStateAreScriptErrors() throws {
    let chart = try Self.fetcher()
    let noTimeout = try #require(throws: ScriptError.self) {
      try chart.scripted(Script().timingOut("Use cache"))
    }
    #expect(
      noTimeout.message
        == "A script cannot make action 'Use cache' (FlowchartTestingTests/ScriptFailureTests.swift:85) time out: it has no timeout. Give the state a .timeout(_:), or force a failure instead."
    )
    let noRoute = try #require(throws: ScriptError.self) {
      try chart.scripted(Script().failing("Fetch fresh?", catchRoute: 2))
    }
    #expect(
      noRoute.message.hasSuffix(
        "to its catch route 3: it has 2 catch routes. Name one of those, or leave the route out."
      ))
  }
}
