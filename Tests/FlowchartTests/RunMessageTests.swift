import Flowchart
import Testing

/// How a run error words a cause of the library's own: as a sentence that says what to do,
/// not as something the state's code threw.
struct RunMessageTests {
  struct Order: Sendable {
    var approved = false
  }

  struct Declined: Error {}

  static let waitLine = #line + 3
  static let approval: Flowchart<Order> = try! Flowchart<Order> {
    Action("Validate") { _ in }
    Wait("Manager approval", for: Bool.self) { $0.approved = $1 }
    Action("Ship", isFinal: true) { _ in }
  }

  @Test func aWaitInARunWithoutAHandleSaysToStartALiveRun() async throws {
    let error = try await #require(throws: RunError.self) {
      try await Self.approval.run(with: Order())
    }
    #expect(error.kind == .thrown)
    expectText(
      error.description,
      """
      The run stopped at waiting state 'Manager approval' \
      (FlowchartTests/RunMessageTests.swift:\(Self.waitLine)): it waits for a value sent from \
      outside, which only a live run can send: start the run with `chart.start(with:)` and \
      send the value with `handle.send(_:to:)`.
      Path: Validate → Manager approval
      """)
  }

  @Test func aWaitInASynchronousRunSaysToStartALiveRun() throws {
    let error = try #require(throws: RunError.self) {
      try Self.approval.runSynchronously(with: Order())
    }
    #expect(error.kind == .asynchronousState)
    expectText(
      error.description,
      """
      Waiting state 'Manager approval' (FlowchartTests/RunMessageTests.swift:\(Self.waitLine)) \
      waits for a value sent from outside, so the chart cannot run synchronously: start a live \
      run with `chart.start(with:)` and send the value with `handle.send(_:to:)`.
      Path: (no state entered)
      """)
  }

  @Test func anAsynchronousActionInASynchronousRunKeepsItsAdvice() throws {
    let line = #line + 2
    let chart = try Flowchart<Order> {
      Action("Charge", isFinal: true) { _ async in }
    }
    let error = try #require(throws: RunError.self) { try chart.runSynchronously(with: Order()) }
    expectText(
      error.description,
      """
      Action 'Charge' (FlowchartTests/RunMessageTests.swift:\(line)) is asynchronous, so the \
      chart cannot run synchronously. Use `try await chart.run(with:)`, or make the state's \
      code synchronous.
      Path: (no state entered)
      """)
  }

  @Test func anErrorOfTheUsersCodeIsToldAsThrown() async throws {
    let line = #line + 2
    let chart = try Flowchart<Order> {
      Action("Charge", isFinal: true) { _ in throw Declined() }
    }
    let error = try await #require(throws: RunError.self) { try await chart.run(with: Order()) }
    expectText(
      error.description,
      """
      The run stopped at action 'Charge' (FlowchartTests/RunMessageTests.swift:\(line)): it \
      threw FlowchartTests.RunMessageTests.Declined().
      Path: Charge
      """)
  }
}
