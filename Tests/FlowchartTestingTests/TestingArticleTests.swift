import Flowchart
import FlowchartTesting
import Testing

/// The recipe of the "Testing your flowcharts" article, on the article's own Health chart,
/// whose exercises sleep for minutes: every test here must end at once, so none may run an
/// exercise's code. Keep the chart and the tests the article's, word for word (`.ci/samples`
/// runs the article's blocks too).
enum TestingArticle {
  struct Subject: Sendable {
    var isWillingToExercise = false
    var isInjured = false
    var log: [String] = []
  }

  static func healthWorkflow() throws -> Flowchart<Subject> {
    try Flowchart<Subject> {
      Condition("Willing to exercise?") {
        $0.isWillingToExercise
      } yes: {
        Action("Lift weights") { subject in
          try await Task.sleep(for: .seconds(300))
          subject.log.append("lifted weights")
        }
        Action("Do sit-ups", isFinal: true) { subject in
          try await Task.sleep(for: .seconds(100))
          subject.log.append("did sit-ups")
        }
      } no: {
        Condition("Injured?", isFinal: true) { $0.isInjured }
      }
    }
  }

  enum Outcome { case healthy, unhealthy, inconclusive }

  static func outcome(of result: RunResult<Subject>) -> Outcome? {
    switch (result.finalStateName, result.decision) {
    case ("Do sit-ups", .done): .healthy
    case ("Injured?", .yes): .inconclusive
    case ("Injured?", .no): .unhealthy
    default: nil
    }
  }

  struct Photo: Sendable {
    var isUploaded = false
    var failure: String?
  }
}

struct TestingArticleTests {
  typealias Subject = TestingArticle.Subject

  func healthWorkflow() throws -> Flowchart<Subject> { try TestingArticle.healthWorkflow() }

  func outcome(of result: RunResult<Subject>) -> TestingArticle.Outcome? {
    TestingArticle.outcome(of: result)
  }

  @Test func liftingIsLoggedWithoutSleeping() async throws {
    let chart = try healthWorkflow()
    let script = Script().taking("Willing to exercise?", .yes).replacingActions()
      .replacing("Lift weights") { (subject: inout Subject) in subject.log.append("lifted weights")
      }
    let result = try await chart.run(with: Subject(), script: script)
    #expect(result.context.log == ["lifted weights"])
    #expect(outcome(of: result) == .healthy)
  }

  @Test(arguments: try TestingArticle.healthWorkflow().routes())
  func everyRouteEndsWithAnOutcome(route: Route) async throws {
    let chart = try healthWorkflow()
    let result = try await chart.run(with: Subject(), script: route.script.replacingActions())
    #expect(result.pathNames == route.stateNames)
    #expect(outcome(of: result) != nil)
  }

  @Test func theRoutesTakeEveryExit() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    for route in chart.routes() {
      let script = route.script.replacingActions()
      if route.endsInFailure {
        await #expect(throws: RunError.self) {
          try await chart.run(with: Subject(), script: script, recordingInto: coverage)
        }
      } else {
        _ = try await chart.run(with: Subject(), script: script, recordingInto: coverage)
      }
    }
    coverage.expectComplete()
  }

  @Test func theUploadsRoutesRunAtOnce() async throws {
    typealias Photo = TestingArticle.Photo
    let upload = try Flowchart<Photo> {
      Action("Upload") { photo in
        try await Task.sleep(for: .seconds(30))
        photo.isUploaded = true
      }
      .timeout(.seconds(60))
      .retry(2, backoff: .fixed(.seconds(10)))
      .catch(goTo: "Report failure") { photo, error in photo.failure = "\(error)" }
      Action("Done", isFinal: true)
      Action("Report failure", isFinal: true)
    }
    expectText(
      upload.routes().map(\.description).joined(separator: "\n"),
      matches: """
        Upload → Done [done]
        Upload [fails, retried] → Done [done]
        Upload [fails 3×, caught] → Report failure [done]
        Upload [times out 3×, caught] → Report failure [done]
        """)
    for route in upload.routes() {
      let result = try await upload.run(with: Photo(), script: route.script.replacingActions())
      #expect(result.pathNames == route.stateNames)
    }
  }
}
