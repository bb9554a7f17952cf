import Flowchart
import Testing

/// A run read only by subscribers records its top-level flow's entries and decisions in a
/// ring of its own, without the run's lock, and moves them into the subscribers' log under
/// the lock: these tests check that nothing is lost or reordered on the way, whatever the
/// number of events against the ring's size, and that subscribing late, cancelling a reader
/// and asking for the positions see what the flow recorded. None depends on when the reader
/// runs: each run either has room for all its events or holds still at a gate.
@Suite(.timeLimit(.minutes(5)))
struct LiveEventRingTests {
  /// A chain of `count` actions, each adding 1; the first waits for `gate` when given.
  private func chain(_ count: Int, holdingAt gate: Gate? = nil) throws -> Flowchart<Int> {
    try Flowchart<Int> {
      if let gate { Action("Hold") { _ in await gate.wait() } }
      for step in 0..<count {
        Action("Step \(step)", isFinal: step == count - 1) { $0 += 1 }
      }
    }
  }

  /// `Step n: entered`, `Step n: finished` for each step of `steps`.
  private func stepLines(_ steps: Range<Int>) -> [String] {
    steps.flatMap { ["Step \($0): entered", "Step \($0): finished"] }
  }

  @Test func eventsOfManyRingsFullKeepTheirOrderWhenTheReaderWaitsForTheEnd() async throws {
    // 3,000 states: 6,002 events, the flow's ring filled and moved into the log many times
    // while the reader reads nothing.
    let chart = try chain(3_000)
    let handle = chart.start(with: 0, isPaused: true)
    let events = handle.events(bufferingNewest: .max)
    handle.resume()
    _ = try await handle.result
    var lines: [String] = []
    var times: [Duration] = []
    for await event in events {
      lines.append(event.line)
      times.append(event.time)
    }
    #expect(lines == ["Step 0: run started"] + stepLines(0..<3_000) + ["Step 2999: run finished"])
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
  }

  @Test func aReaderReadingAlongGetsEveryEventInOrder() async throws {
    let chart = try chain(20_000)
    let handle = chart.start(with: 0, isPaused: true)
    let events = handle.events(bufferingNewest: .max)
    let reader = Task {
      var states: [Int] = []
      var decided = 0
      for await event in events {
        if case .stateEntered = event.kind { states.append(event.state?.index ?? -1) }
        if case .stateDecided = event.kind { decided += 1 }
      }
      return (states, decided)
    }
    handle.resume()
    let result = try await handle.result
    let (states, decided) = await reader.value
    #expect(result.context == 20_000)
    #expect(states == Array(0..<20_000))
    #expect(decided == 20_000)
  }

  @Test func aLateSubscriberGetsOnlyWhatCameAfterIt() async throws {
    let gate = Gate()
    let chart = try chain(3, holdingAt: gate)
    let handle = chart.start(with: 0, isPaused: true)
    var first = handle.events().makeAsyncIterator()
    handle.resume()
    // The run holds in "Hold": its entry is in the flow's ring, maybe not yet in the log.
    #expect(await first.next(where: { $0.line == "Hold: entered" }) != nil)
    let late = handle.events()
    gate.open()
    var lines: [String] = []
    for await event in late { lines.append(event.line) }
    #expect(lines == ["Hold: finished"] + stepLines(0..<3) + ["Step 2: run finished"])
    var rest: [String] = []
    while let event = await first.next() { rest.append(event.line) }
    #expect(rest == lines)
  }

  @Test func cancellingOneReaderLeavesTheOtherEveryEvent() async throws {
    let gate = Gate()
    let chart = try chain(2_000, holdingAt: gate)
    let handle = chart.start(with: 0, isPaused: true)
    let kept = handle.events(bufferingNewest: .max)
    let cancelled = handle.events(bufferingNewest: .max)
    handle.resume()
    let reader = Task {
      var iterator = cancelled.makeAsyncIterator()
      _ = await iterator.next(where: { $0.line == "Hold: entered" })
      // Waits for the gate's events, then reads on until cancelled.
      var count = 0
      while await iterator.next() != nil { count += 1 }
      return count
    }
    reader.cancel()
    _ = await reader.value
    gate.open()
    _ = try await handle.result
    var lines: [String] = []
    for await event in kept { lines.append(event.line) }
    #expect(
      lines
        == ["Hold: run started", "Hold: entered", "Hold: finished"] + stepLines(0..<2_000)
        + ["Step 1999: run finished"])
  }

  @Test func theHandleSeesWhereAFlowReadOnlyBySubscribersIs() async throws {
    let gate = Gate()
    let chart = try chain(2, holdingAt: gate)
    let handle = chart.start(with: 0, isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    #expect(await events.next(where: { $0.line == "Hold: entered" }) != nil)
    #expect(handle.positionNames == ["Hold"])
    gate.open()
    _ = try await handle.result
  }

  @Test func aPausedFlowReadOnlyBySubscribersReportsInOrder() async throws {
    let handleBox = Box<RunHandle<Int>>()
    let chart = try Flowchart<Int> {
      Action("Pause") { _ in handleBox.wrapped?.pause() }
      Action("After") { $0 += 1 }
      Action("Last", isFinal: true) { $0 += 1 }
    }
    let handle = chart.start(with: 0, isPaused: true)
    handleBox.set(handle)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    var lines: [String] = []
    while let event = await events.next() {
      lines.append(event.line)
      if event.isPaused { handle.resume() }
    }
    #expect(
      lines == [
        "Pause: run started", "Pause: entered", "Pause: finished", "After: paused",
        "After: resumed", "After: entered", "After: finished", "Last: entered",
        "Last: finished", "Last: run finished",
      ])
    let times = try await handle.result.context
    #expect(times == 2)
  }
}
