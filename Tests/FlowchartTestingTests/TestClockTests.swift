import Flowchart
import FlowchartTesting
import Testing

struct TestClockTests {
  @Test func aSleeperWakesOnlyWhenTheClockReachesItsDeadline() async throws {
    let clock = TestClock()
    let sleeper = Task {
      try await clock.sleep(for: .seconds(5))
      return clock.now
    }
    try await clock.waitForSleepers(1)
    #expect(clock.nextDeadline == TestClock.Instant(offset: .seconds(5)))
    #expect(clock.advance(by: .seconds(4)) == 0)
    #expect(clock.sleeperCount == 1)
    #expect(clock.advance(by: .seconds(1)) == 1)
    #expect(clock.sleeperCount == 0)
    #expect(try await sleeper.value == TestClock.Instant(offset: .seconds(5)))
  }

  @Test func advancingWakesOnlyTheDueSleepers() async throws {
    let clock = TestClock()
    let early = Task { try await clock.sleep(until: .init(offset: .seconds(1))) }
    let late = Task { try await clock.sleep(until: .init(offset: .seconds(3))) }
    try await clock.waitForSleepers(2)
    #expect(clock.advance(to: .init(offset: .seconds(2))) == 1)
    try await early.value
    #expect(clock.sleeperCount == 1)
    #expect(clock.nextDeadline == .init(offset: .seconds(3)))
    #expect(clock.advance(by: .seconds(1)) == 1)
    try await late.value
  }

  @Test func aDeadlineAlreadyReachedReturnsAtOnce() async throws {
    let clock = TestClock()
    clock.advance(by: .seconds(10))
    try await clock.sleep(until: .init(offset: .seconds(3)))
    try await clock.sleep(for: .zero)
    #expect(clock.sleeperCount == 0)
  }

  @Test func cancellingASleeperWakesItWithACancellationError() async throws {
    let clock = TestClock()
    let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
    try await clock.waitForSleepers(1)
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
    #expect(clock.now == .init(offset: .zero))
  }

  @Test func aTaskCancelledBeforeItSleepsDoesNotSleep() async throws {
    let clock = TestClock()
    await #expect(throws: CancellationError.self) {
      withUnsafeCurrentTask { $0?.cancel() }
      try await clock.sleep(for: .seconds(1))
    }
    #expect(clock.sleeperCount == 0)
  }

  @Test func waitingForSleepersCanBeCancelled() async throws {
    let clock = TestClock()
    let waiter = Task { try await clock.waitForSleepers(3) }
    waiter.cancel()
    await #expect(throws: CancellationError.self) { try await waiter.value }
  }

  @Test func theClockCannotGoBack() {
    let clock = TestClock()
    clock.advance(by: .seconds(2))
    let issues = IssueReporting.recording { clock.advance(by: .seconds(-1)) }
    #expect(issues.count == 1)
    #expect(issues.first?.comment.hasPrefix("A test clock cannot go back") == true)
    #expect(clock.now == .init(offset: .seconds(2)))
  }

  @Test func copiesShareOneTimeline() {
    let clock = TestClock()
    let copy = clock
    copy.advance(by: .milliseconds(1500))
    #expect(clock.now.offset == .milliseconds(1500))
    #expect(clock.now.description == "start + 1.5 seconds")
    #expect(clock.minimumResolution == .zero)
  }

  @Test func aChartWaitsOnTheTestClock() async throws {
    let clock = TestClock()
    // swift-format-ignore
    let chart = try Flowchart<Counter> {
      Action("Wait for payment") { counter in
        try await clock.sleep(for: .seconds(30))
        counter.log.append("paid at \(clock.now)")
      }
      Action("Ship", isFinal: true) { $0.log.append("shipped") }
    }
    let run = Task { try await chart.run(with: Counter()) }
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(30))
    let result = try await run.value
    #expect(result.context.log == ["paid at start + 30.0 seconds", "shipped"])
  }

  @Test func cancellingARunWakesItsSleepingState() async throws {
    let clock = TestClock()
    // swift-format-ignore
    let chart = try Flowchart<Counter> {
      Action("Wait") { _ in try await clock.sleep(for: .seconds(30)) }
      Action("Done", isFinal: true)
    }
    let run = Task { try await chart.run(with: Counter()) }
    try await clock.waitForSleepers(1)
    run.cancel()
    let error = await #expect(throws: RunError.self) { try await run.value }
    #expect(error?.kind == .cancelled)
    #expect(error?.stateName == "Wait")
  }
}
