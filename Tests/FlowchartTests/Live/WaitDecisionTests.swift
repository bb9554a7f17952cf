import Flowchart
import Testing

/// Waiting states that decide: wait for a value, apply it, then branch on it.
@Suite(.timeLimit(.minutes(5)))
struct WaitDecisionTests {
  struct Order: Sendable, Equatable {
    var log: [String] = []
  }

  enum Delivery: Sendable, Hashable {
    case pickUp, courier, post
  }

  // swift-format-ignore
  static func approvalChart() throws -> Flowchart<Order> {
    try Flowchart<Order> {
      Action("Prepare") { $0.log.append("prepared") }
      Wait("Approved?", for: Bool.self) { order, approved in
        order.log.append("answer \(approved)")
        return approved
      } yes: {
        Action("Ship", isFinal: true) { $0.log.append("shipped") }
      } no: {
        Action("Refund", isFinal: true) { $0.log.append("refunded") }
      }
    }
  }

  // swift-format-ignore
  static func deliveryChart() throws -> Flowchart<Order> {
    try Flowchart<Order> {
      Wait("Delivery", for: Delivery.self) { order, delivery in
        order.log.append("chose \(delivery)")
        return delivery
      } exits: {
        Case(Delivery.pickUp) { Action("Hold at the desk", isFinal: true) { $0.log.append("held") } }
        Case(Delivery.courier) { Action("Call the courier", isFinal: true) { $0.log.append("called") } }
      }
    }
  }

  @Test func theValueTypeCanBeInferredFromTheClosure() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Wait("Approved?") { (order: inout Order, approved: Bool) in
        order.log.append("answer \(approved)")
        return approved
      } yes: {
        Wait("Delivery") { (order: inout Order, delivery: Delivery) in
          order.log.append("chose \(delivery)")
          return delivery
        } exits: {
          Case(Delivery.pickUp) { Action("Hold at the desk", isFinal: true) { _ in } }
          Default { Action("Call the courier", isFinal: true) { _ in } }
        }
      } no: {
        Wait("Note", isFinal: true) { (order: inout Order, note: String) in
          order.log.append(note)
        }
      }
    }
    let handle = chart.start(with: Order(), isPaused: true)
    #expect(try handle.send(true, to: "Approved?"))
    #expect(try handle.send(Delivery.post, to: "Delivery"))
    // A value of another type than the state waits for is refused.
    #expect(throws: InputError.self) { try handle.send("late", to: "Delivery") }
    handle.resume()
    let result = try await handle.result
    #expect(result.context.log == ["answer true", "chose post"])
    #expect(result.finalStateName == "Call the courier")
  }

  @Test(arguments: [true, false])
  func decidesYesOrNoWithAValueSentBeforeTheStateIsReached(approved: Bool) async throws {
    let chart = try Self.approvalChart()
    let handle = chart.start(with: Order(), isPaused: true)
    #expect(try handle.send(approved, to: "Approved?"))
    handle.resume()
    let result = try await handle.result
    #expect(
      result.context.log == ["prepared", "answer \(approved)", approved ? "shipped" : "refunded"])
    #expect(result.finalStateName == (approved ? "Ship" : "Refund"))
  }

  @Test func decidesYesOrNoWithAValueSentWhileTheStateWaits() async throws {
    let chart = try Self.approvalChart()
    let handle = chart.start(with: Order(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    let waiting = await events.next { if case .waitingForInput = $0.kind { true } else { false } }
    #expect(waiting?.stateName == "Approved?")
    #expect(try handle.send(false, to: "Approved?"))
    var lines: [String] = []
    while let event = await events.next() { lines.append(event.line) }
    #expect(
      lines == [
        "Approved?: decided no", "Refund: entered", "Refund: finished",
        "Refund: run finished",
      ])
  }

  @Test func picksTheExitForTheKeyItReturns() async throws {
    let chart = try Self.deliveryChart()
    let before = chart.start(with: Order(), isPaused: true)
    try before.send(Delivery.courier, to: "Delivery")
    before.resume()
    #expect(try await before.result.context.log == ["chose courier", "called"])

    let after = chart.start(with: Order(), isPaused: true)
    var events = after.events().makeAsyncIterator()
    after.resume()
    _ = await events.next { if case .waitingForInput = $0.kind { true } else { false } }
    try after.send(Delivery.pickUp, to: "Delivery")
    let result = try await after.result
    #expect(result.context.log == ["chose pickUp", "held"])
    #expect(result.finalStateName == "Hold at the desk")
  }

  @Test func aKeyWithoutACaseFailsTheRunAtTheWaitingState() async throws {
    let chart = try Self.deliveryChart()
    let handle = chart.start(with: Order())
    try handle.send(Delivery.post, to: "Delivery")
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .unmatchedKey)
    #expect(error.stateName == "Delivery")
  }

  @Test func theWrongTypeIsRefusedAtTheCall() async throws {
    let chart = try Self.deliveryChart()
    let handle = chart.start(with: Order())
    let error = #expect(throws: InputError.self) { try handle.send(true, to: "Delivery") }
    #expect(error?.kind == .wrongType)
    handle.cancel()
    _ = try? await handle.result
  }

  @Test func printsAsAWaitingStateWithTheExitsOfACondition() throws {
    let chart = try Self.approvalChart()
    #expect(
      chart.description == """
        Prepare (A)
        Approved? (W)
        Y- Ship (A) !
        N- Refund (A) !
        """)
  }

  @Test func failsInARunWithoutAHandle() async throws {
    let chart = try Self.approvalChart()
    let error = try await #require(throws: RunError.self) { try await chart.run(with: Order()) }
    #expect(error.stateName == "Approved?")
    #expect(error.description.contains("chart.start(with:)"))
  }
}
