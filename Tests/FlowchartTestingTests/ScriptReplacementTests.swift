import Flowchart
import FlowchartTesting
import Testing

/// Scripts that keep or replace the code of actions, explicitly.
struct ScriptReplacementTests {
  /// A chart whose actions must not run in a test: each throws `CodeRan`.
  static func guarded() throws -> Flowchart<Counter> {
    try Flowchart<Counter> {
      Action("Call the server") { _ in throw CodeRan(state: "Call the server") }
      Condition("Again?") {
        $0.count < 1
      } yes: {
        Action("Sleep", isFinal: true) { _ in
          try await Task.sleep(for: .seconds(3600))
          throw CodeRan(state: "Sleep")
        }
      } no: {
        Action("Stop", isFinal: true) { $0.log.append("stopped") }
      }
    }
  }

  @Test func actionsKeepTheirCodeByDefault() async throws {
    let chart = try Self.guarded()
    let error = try await #require(throws: RunError.self) {
      try await chart.run(with: Counter(), script: ["Again?": .no])
    }
    #expect(error.underlyingError as? CodeRan == CodeRan(state: "Call the server"))
  }

  @Test func replacingActionsSkipsEveryActionsCode() throws {
    let chart = try Self.guarded()
    let script = Script().taking("Again?", .yes).replacingActions()
    #expect(script.actionCode == .replaced)
    // No action's code runs, so the chart is synchronous.
    let result = try chart.runSynchronously(with: Counter(), script: script)
    #expect(result.pathNames == ["Call the server", "Again?", "Sleep"])
    #expect(result.context.log.isEmpty)
    #expect(
      "\(script)" == "Again? = exit yes (replacing every action's code)")
  }

  @Test func aReplacementRunsInPlaceOfTheCode() async throws {
    let chart = try Self.guarded()
    let script = Script().taking("Again?", .no).replacingActions()
      .replacing("Stop") { (counter: inout Counter) in counter.log.append("replaced") }
      .replacing("Call the server") { (counter: inout Counter) async in
        await Task.yield()
        counter.count += 1
      }
    let result = try await chart.run(with: Counter(), script: script)
    #expect(result.pathNames == ["Call the server", "Again?", "Stop"])
    #expect(result.context.log == ["replaced"])
    #expect(result.context.count == 1)
  }

  @Test func anAsynchronousReplacementMakesTheStateAsynchronous() async throws {
    let chart = try retryLoop()
    #expect(chart.isSynchronous)
    let script = Script().taking("Failed?", .no)
      .replacing("Fetch") { (counter: inout Counter) async in
        await Task.yield()
        counter.log.append("fetched")
      }
    let scripted = try chart.scripted(script)
    #expect(!scripted.isSynchronous)
    let result = try await scripted.run(with: Counter())
    #expect(result.context.log == ["fetched"])
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: Counter(), script: script)
    }
    #expect(error.kind == .asynchronousState)
    #expect(error.stateName == "Fetch")
  }

  @Test func aReplacedConditionNeedsAForcedDecision() async throws {
    let chart = try Self.guarded()
    let script = Script().replacing("Again?") { (counter: inout Counter) in counter.count = 5 }
    let error = try #require(throws: ScriptError.self) { try chart.scripted(script) }
    #expect(
      error.message
        == "The script replaces the code of condition 'Again?' (FlowchartTestingTests/ScriptReplacementTests.swift:11) but forces none of its decisions, and a closure that returns nothing cannot decide. Force its decision too, with deciding(_:_:) or taking(_:_:)."
    )
    // With its decision forced, the replacement runs and the forced exit is taken.
    let forced = try await chart.run(
      with: Counter(), script: script.taking("Again?", .no).replacingActions())
    #expect(forced.context.count == 5)
    #expect(forced.finalStateName == "Stop")
  }

  @Test func aReplacementOverAnotherContextIsAScriptError() throws {
    let chart = try Self.guarded()
    let script = Script().replacing("Stop") { (subject: inout Subject) in subject.isInjured = true }
    let error = try #require(throws: ScriptError.self) { try chart.scripted(script) }
    #expect(error.stateName == "Stop")
    #expect(error.message.contains("which is not code over the chart's context, Counter."))
  }

  @Test func aForcedWaitTakesNoValue() async throws {
    let chart = try Flowchart<Counter> {
      Wait("Count", for: Int.self) { counter, value in counter.count = value }
      Wait("Approved?", for: Bool.self) { _, approved in
        approved
      } yes: {
        Action("Ship", isFinal: true)
      } no: {
        Action("Refund", isFinal: true)
      }
    }
    let routes = chart.routes()
    #expect(
      routes.map(\.description) == [
        "Count → Approved? [yes] → Ship [done]", "Count → Approved? [no] → Refund [done]",
      ])
    for route in routes {
      // Synchronously, even: a forced wait takes no value.
      let result = try chart.runSynchronously(with: Counter(), script: route.script)
      #expect(result.pathNames == route.stateNames)
    }
  }
}
