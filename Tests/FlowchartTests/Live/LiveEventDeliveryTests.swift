import Flowchart
import Testing

/// How a subscriber's stream delivers a run's events in batches: order, the bounded buffer's
/// drop policy, and the end of a subscription. None of these depends on when the reader
/// happens to run: each run either has room for all its events or holds still while the
/// test reads.
@Suite(.timeLimit(.minutes(5)))
struct LiveEventDeliveryTests {
  /// A chain of `count` actions, each adding 1.
  private func chain(_ count: Int) throws -> Flowchart<Int> {
    try Flowchart<Int> {
      for step in 0..<count {
        Action("Step \(step)", isFinal: step == count - 1) { $0 += 1 }
      }
    }
  }

  @Test func aReaderWithRoomForEveryEventGetsThemAllInOrder() async throws {
    let chart = try chain(2_000)
    let handle = chart.start(with: 0, isPaused: true)
    let events = handle.events(bufferingNewest: 10_000)
    handle.resume()
    var lines: [String] = []
    for await event in events { lines.append(event.line) }
    var expected = ["Step 0: run started"]
    for step in 0..<2_000 {
      expected += ["Step \(step): entered", "Step \(step): finished"]
    }
    expected.append("Step 1999: run finished")
    #expect(lines == expected)
  }

  @Test func eventTimesNeverGoBackward() async throws {
    let chart = try chain(500)
    let handle = chart.start(with: 0, isPaused: true)
    let events = handle.events(bufferingNewest: 10_000)
    handle.resume()
    var times: [Duration] = []
    for await event in events { times.append(event.time) }
    #expect(times.count == 1_002)
    #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
  }

  @Test func aReaderThatFallsBehindGetsTheNewestEventsAfterWhatItRead() async throws {
    let gate = Gate()
    // swift-format-ignore
    let chart = try Flowchart<Int> {
      Action("Hold") { _ in await gate.wait() }
      for step in 0..<50 {
        Action("Step \(step)", isFinal: step == 49) { $0 += 1 }
      }
    }
    let handle = chart.start(with: 0, isPaused: true)
    var events = handle.events(bufferingNewest: 3).makeAsyncIterator()
    handle.resume()
    // The run holds at "Hold" until the gate opens: these events all fit.
    let held = await events.next { $0.line == "Hold: entered" }
    #expect(held != nil)
    gate.open()
    _ = try await handle.result
    // 102 events came while the reader did not read: it keeps the newest three.
    var lines: [String] = []
    while let event = await events.next() { lines.append(event.line) }
    #expect(
      lines == ["Step 49: entered", "Step 49: finished", "Step 49: run finished"])
  }

  @Test func aReaderWaitingForAQuietRunGetsItsNextEvent() async throws {
    let gate = Gate()
    let chart = try Flowchart<Int> {
      Action("Hold") { _ in await gate.wait() }
      Action("Last", isFinal: true) { $0 += 1 }
    }
    let handle = chart.start(with: 0, isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    #expect(await events.next()?.line == "Hold: run started")
    #expect(await events.next()?.line == "Hold: entered")
    // Nothing more comes until the gate opens, which happens whether or not the reader
    // already waits for the next event.
    let opener = Task { gate.open() }
    var lines: [String] = []
    while let event = await events.next() { lines.append(event.line) }
    await opener.value
    #expect(
      lines == [
        "Hold: finished", "Last: entered", "Last: finished",
        "Last: run finished",
      ])
  }

  @Test func cancellingTheReaderEndsItsStreamAndNotTheRun() async throws {
    let gate = Gate()
    let chart = try Flowchart<Int> {
      Action("Hold") { _ in await gate.wait() }
      Action("Last", isFinal: true) { $0 += 1 }
    }
    let handle = chart.start(with: 0, isPaused: true)
    let events = handle.events()
    handle.resume()
    let reader = Task {
      var count = 0
      for await _ in events { count += 1 }
      return count
    }
    reader.cancel()
    // The stream ended for the cancelled reader, whatever it had read by then.
    let read = await reader.value
    #expect(read <= 2)
    gate.open()
    let result = try await handle.result
    #expect(result.context == 1)
  }

  @Test func severalReadersEachGetEveryEvent() async throws {
    let chart = try chain(300)
    let handle = chart.start(with: 0, isPaused: true)
    let streams = (0..<3).map { _ in handle.events(bufferingNewest: 1_000) }
    handle.resume()
    var counts: [Int] = []
    for stream in streams {
      var count = 0
      for await _ in stream { count += 1 }
      counts.append(count)
    }
    #expect(counts == [602, 602, 602])
  }
}
