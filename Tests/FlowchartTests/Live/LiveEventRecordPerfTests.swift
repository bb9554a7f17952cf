import Flowchart
import Testing

/// The event records a live run keeps once for all its subscribers: readers with different
/// limits share them, and events whose kinds carry more than a number keep their kinds as
/// the ring wraps. Each run holds still (at a gate) while a reader must not read, so nothing
/// depends on when the reader runs.
@Suite(.timeLimit(.minutes(5)))
struct LiveEventRecordPerfTests {
  struct Broken: Error {}

  @Test func readersWithDifferentLimitsEachGetTheirShare() async throws {
    let gate = Gate()
    // swift-format-ignore
    let chart = try Flowchart<Int> {
      Action("Hold") { _ in await gate.wait() }
      for step in 0..<20 {
        Action("Step \(step)", isFinal: step == 19) { $0 += 1 }
      }
    }
    let handle = chart.start(with: 0, isPaused: true)
    var small = handle.events(bufferingNewest: 2).makeAsyncIterator()
    let large = handle.events(bufferingNewest: 1_000)
    handle.resume()
    #expect(await small.next { $0.line == "Hold: entered" } != nil)
    gate.open()
    var all: [String] = []
    for await event in large { all.append(event.line) }
    _ = try await handle.result
    var expected = ["Hold: run started", "Hold: entered", "Hold: finished"]
    for step in 0..<20 { expected += ["Step \(step): entered", "Step \(step): finished"] }
    expected.append("Step 19: run finished")
    #expect(all == expected)
    var newest: [String] = []
    while let event = await small.next() { newest.append(event.line) }
    #expect(newest == ["Step 19: finished", "Step 19: run finished"])
  }

  @Test func eventsWithPayloadsKeepThemAsTheRingWraps() async throws {
    let gate = Gate()
    // swift-format-ignore
    let chart = try Flowchart<Int> {
      Action("Hold") { _ in await gate.wait() }
      Action("Flaky") { _ in throw Broken() }
        .retry(3)
        .catch(goTo: "End")
      Action("Unreached") { _ in }
      Action("End", isFinal: true) { $0 += 1 }
    }
    let handle = chart.start(with: 0, isPaused: true)
    var events = handle.events(bufferingNewest: 4).makeAsyncIterator()
    handle.resume()
    #expect(await events.next { $0.line == "Hold: entered" } != nil)
    gate.open()
    _ = try await handle.result
    // Eleven events came while the reader did not read, six with payloads: the ring of four
    // wrapped, and the newest four keep their kinds.
    var lines: [String] = []
    while let event = await events.next() { lines.append(event.line) }
    #expect(
      lines == [
        "Flaky: caught FlowchartTests.LiveEventRecordPerfTests.Broken(), going to 'End'",
        "End: entered", "End: finished", "End: run finished",
      ])
  }

  @Test func aStreamMadeAfterTheRunEndedIsAlreadyFinished() async throws {
    let chart = try Flowchart<Int> { Action("Only", isFinal: true) { $0 += 1 } }
    let handle = chart.start(with: 0)
    _ = try await handle.result
    var count = 0
    for await _ in handle.events() { count += 1 }
    #expect(count == 0)
  }
}
