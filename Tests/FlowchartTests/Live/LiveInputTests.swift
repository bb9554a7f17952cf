import Flowchart
import Testing

private struct Order: Sendable {
  var photos: [String] = []
  var metadata = ""
}

@Suite(.timeLimit(.minutes(5)))
struct LiveInputTests {
  private func chart() throws -> Flowchart<Order> {
    try Flowchart<Order> {
      Wait("Photo available", for: String.self) { order, photo in order.photos.append(photo) }
      Wait("Metadata available", for: String.self, isFinal: true) { $0.metadata = $1 }
    }
  }

  @Test func aValueSentBeforeTheStateIsReachedIsKeptUntilItIs() async throws {
    let handle = try chart().start(with: Order(), isPaused: true)
    #expect(try handle.send("meta", to: "Metadata available"))
    #expect(try handle.send("photo", to: "Photo available"))
    handle.resume()
    let result = try await handle.result
    #expect(result.context.photos == ["photo"])
    #expect(result.context.metadata == "meta")
  }

  @Test func aWaitingRunTakesTheValueWhenItComesAndTheFirstWins() async throws {
    let chart = try chart()
    let handle = chart.start(with: Order(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    let waiting = await events.next {
      if case .waitingForInput = $0.kind { true } else { false }
    }
    #expect(waiting?.stateName == "Photo available")
    #expect(handle.positions == [chart.state(named: "Photo available")])
    // Sent while the run waits for the photo, so that it cannot take them yet: kept but not
    // yet taken, a second value loses.
    #expect(try handle.send("meta", to: chart.state(named: "Metadata available")!))
    #expect(try handle.send("second", to: "Metadata available") == false)
    #expect(try handle.send("first", to: "Photo available"))
    let result = try await handle.result
    #expect(result.context.photos == ["first"])
    #expect(result.context.metadata == "meta")
    // Once the run has ended, input is refused at the call.
    let late = #expect(throws: InputError.self) { try handle.send("late", to: "Photo available") }
    #expect(late?.kind == .runEnded)
  }

  @Test func sendingToAStateThatDoesNotWaitOrWithTheWrongTypeIsAnErrorAtTheCall() async throws {
    let chart = try Flowchart<Order> {
      Action("Prepare") { _ in }
      Wait("Photo available", for: String.self, isFinal: true) { $0.photos.append($1) }
    }
    let handle = chart.start(with: Order(), isPaused: true)
    let unknown = #expect(throws: InputError.self) { try handle.send("x", to: "Photo") }
    #expect(unknown?.kind == .unknownState)
    let notWaiting = #expect(throws: InputError.self) { try handle.send("x", to: "Prepare") }
    #expect(notWaiting?.kind == .notWaiting)
    #expect(
      notWaiting?.reason
        == "Action 'Prepare' does not wait for input: send the value to a waiting state (a Wait).")
    let wrongType = #expect(throws: InputError.self) { try handle.send(3, to: "Photo available") }
    #expect(wrongType?.kind == .wrongType)
    #expect(
      wrongType?.reason
        == "Waiting state 'Photo available' waits for a String, not an Int: send a String.")
    // The run is unharmed.
    try handle.send("photo", to: "Photo available")
    handle.resume()
    #expect(try await handle.result.context.photos == ["photo"])
  }

  @Test func cancellingAWaitingRunEndsItAtOnce() async throws {
    let handle = try chart().start(with: Order(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    _ = await events.next { if case .waitingForInput = $0.kind { true } else { false } }
    handle.cancel()
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Photo available")
  }

  @Test func aRunWithoutAHandleFailsAtAWaitingStateAndSaysWhy() async throws {
    // Not `#require(throws:)` around the run: in release, Swift 6.3.1 crashes (signal 11)
    // splitting that closure's coroutine. The do/catch asserts the same thing.
    let chart = try chart()
    let error: RunError
    do {
      _ = try await chart.run(with: Order())
      Issue.record("The run ended without the RunError of its waiting state.")
      return
    } catch let thrown {
      error = thrown
    }
    #expect(error.kind == .thrown)
    #expect(error.description.contains("start the run with `chart.start(with:)`"))
  }

  @Test func theTreePrintsAWaitingStateWithW() throws {
    #expect(
      try chart().treeDescription.split(separator: "\n") == [
        "Photo available (W)", "Metadata available (W) !",
      ])
    #expect(StateKind.waiting.letter == "W")
    #expect("\(StateKind.waiting)" == "waiting state")
  }

  /// A live run's handle addresses the states of its own chart: a Wait in a subflow's chart
  /// cannot be fed, and the run says so rather than fail with a bare `CancellationError`.
  @Test func aWaitInsideASubflowsChartFailsTheRunWithAnErrorThatSaysWhy() async throws {
    let waitLine = #line + 2
    let inner = try Flowchart<Order> {
      Wait("Inner answer", for: String.self, isFinal: true) { $0.metadata = $1 }
    }
    let outer = try Flowchart<Order> {
      Subflow("Ask", isFinal: true, running: inner, context: .whole)
    }
    let handle = outer.start(with: Order())
    let refused = #expect(throws: InputError.self) { try handle.send("x", to: "Inner answer") }
    #expect(refused?.kind == .unknownState)
    let error = try await #require(throws: RunError.self) { try await handle.result }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Ask")
    #expect(
      error.description.contains(
        "The run stopped at waiting state 'Inner answer' (FlowchartTests/LiveInputTests.swift:\(waitLine)): it is in the chart of a subflow or a map, and a live run feeds only the waiting states of its own chart"
      ))
    #expect(!error.description.contains("CancellationError"))
  }
}
