import Flowchart
import FlowchartTesting
import Testing

/// A script's own problem at run time (here a state entered more often than the script gives
/// it decisions) fails the run at once: no retry, catch route, typed catch handler, join
/// policy or map tolerance takes it as the state's own failure.
struct ScriptProblemTests {
  struct Order: Sendable {
    var caught: String?
  }

  /// What a run's failure says, its cause's message included.
  static func said(_ error: any Error) -> String {
    guard let run = error as? RunError else { return "\(error)" }
    return "\(run) | " + (run.underlyingError.map { said($0) } ?? "")
  }

  /// `Charge`, retried 5 times; the script forces two failures and no success, so its third
  /// attempt is a visit the script gives no decision.
  @Test func aRetryDoesNotRetryAScriptsOwnProblem() async throws {
    let chart = try Flowchart<Order> {
      Action("Charge").retry(5)
      Action("Done", isFinal: true)
    }
    let script = Script().failing("Charge", times: 2)
    let error = try await #require(throws: RunError.self) {
      try await chart.run(with: Order(), script: script)
    }
    #expect(Self.said(error).contains("but the runs of the scripted chart entered it 3 times"))
    let synchronous = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: Order(), script: script)
    }
    #expect(
      Self.said(synchronous).contains("but the runs of the scripted chart entered it 3 times"))
  }

  @Test func aCatchRouteDoesNotCatchAScriptsOwnProblem() async throws {
    let chart = try Flowchart<Order> {
      Action("Charge").retry(2).catch(goTo: "Refund") { order, error in
        order.caught = "\(error)"
      }
      Action("Done", isFinal: true)
      Action("Refund", isFinal: true)
    }
    let script = Script().failing("Charge", times: 2)
    let error = try await #require(throws: RunError.self) {
      try await chart.run(with: Order(), script: script)
    }
    #expect(error.stateName == "Charge")
    #expect(Self.said(error).contains("entered it 3 times"))
  }

  @Test func aTypedCatchHandlerDoesNotCatchAScriptsOwnProblem() throws {
    let chart = try Flowchart<Order> {
      Action("Charge").retry(1).catch((any Error).self, goTo: "Refund") { order, error in
        order.caught = "\(error)"
      }
      Action("Done", isFinal: true)
      Action("Refund", isFinal: true)
    }
    let script = Script().failing("Charge").failing("Charge")
    // Two attempts, two forced failures: the catch route takes the second, as it should.
    let caught = try chart.runSynchronously(with: Order(), script: script)
    #expect(caught.pathNames == ["Charge", "Refund"])
    // A third visit of the same scripted chart has no decision: nothing catches that.
    let scripted = try chart.scripted(Script().failing("Charge", times: 2))
    _ = try scripted.runSynchronously(with: Order())
    let error = try #require(throws: RunError.self) {
      try scripted.runSynchronously(with: Order())
    }
    #expect(Self.said(error).contains("entered it 3 times"))
  }

  @Test func aJoinPolicyDoesNotTolerateAScriptsOwnProblem() async throws {
    for maxConcurrency in [nil, 1] {
      let chart = try Flowchart<Order> {
        Dispatch("Fulfil", maxConcurrency: maxConcurrency, join: .toleratingFailures(1)) {
          Branch { Action("Reserve", isFinal: true).retry(1) }
          Branch { Action("Pack", isFinal: true) }
        }
        Action("Ship", isFinal: true)
      }
      // Two attempts, two forced failures: an ordinary failure, tolerated.
      let tolerated = try await chart.run(
        with: Order(), script: Script().failing("Reserve", times: 2))
      #expect(tolerated.pathNames.last == "Ship")
      // A third visit of a state given two decisions is the script's problem.
      let script = Script().deciding("Pack", .done, .done)
      let scripted = try chart.scripted(script)
      _ = try await scripted.run(with: Order())
      _ = try await scripted.run(with: Order())
      let error = try await #require(throws: RunError.self) {
        try await scripted.run(with: Order())
      }
      #expect(Self.said(error).contains("entered it 3 times"))
      let synchronous = try chart.scripted(script)
      _ = try synchronous.runSynchronously(with: Order())
      _ = try synchronous.runSynchronously(with: Order())
      let synchronousError = try #require(throws: RunError.self) {
        try synchronous.runSynchronously(with: Order())
      }
      #expect(Self.said(synchronousError).contains("entered it 3 times"))
    }
  }

  struct Batch: Sendable {
    var items = [Order(), Order(), Order()]
    var done = 0
  }

  @Test func aMapDoesNotTolerateAScriptsOwnProblem() async throws {
    let element = try Flowchart<Order> { Action("Handle", isFinal: true) }
    // Two decisions for three elements: the third element's run is the script's problem.
    let scripted = try element.scripted(Script().deciding("Handle", .done, .done))
    let chart = try Flowchart<Batch> {
      Map(
        "Each", over: { $0.items }, running: scripted, maxConcurrency: 1, toleratedFailures: 2
      ) { batch, results in
        batch.done = results.outputs.count
      }
      Action("End", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) {
      try await chart.run(with: Batch())
    }
    #expect(Self.said(error).contains("entered it 3 times"))
  }
}
