import Flowchart
import FlowchartTesting
import Testing

/// When each attempt of a state's code started, by a test clock.
final class AttemptTimes: Sendable {
  private let times = Lock<[Duration]>([])
  func record(_ clock: TestClock) { times.withLock { $0.append(clock.now.offset) } }
  var all: [Duration] { times.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(5)))
struct ModifierClockTests {
  /// Lets `retries` backoff delays pass, each as soon as the run sleeps on it.
  private func passDelays(_ retries: Int, on clock: TestClock) async throws {
    for _ in 0..<retries {
      try await clock.waitForSleepers(1)
      clock.advance(to: clock.nextDeadline!)
    }
  }

  /// A chart whose one state fails its first `failures` attempts, recording when each
  /// started.
  // swift-format-ignore
  private func flaky(
    failures: Int, retries: Int, backoff: Backoff, clock: TestClock, times: AttemptTimes
  ) throws -> Flowchart<Job> {
    let attempts = AttemptCounter()
    return try Flowchart<Job> {
      Action("Upload", isFinal: true) { job in
        times.record(clock)
        if attempts.next() <= failures { throw Glitch.transient }
        job.log.append("uploaded")
      }
      .retry(retries, backoff: backoff)
    }
  }

  // MARK: - Backoff schedules

  @Test func aFixedBackoffWaitsTheSameBeforeEachRetry() async throws {
    let clock = TestClock()
    let times = AttemptTimes()
    let chart = try flaky(
      failures: 3, retries: 3, backoff: .fixed(.seconds(2)), clock: clock, times: times)
    async let result = chart.run(with: Job(), clock: clock)
    try await passDelays(3, on: clock)
    let ended = try await result
    #expect(ended.context.log == ["uploaded"])
    #expect(times.all == [.zero, .seconds(2), .seconds(4), .seconds(6)])
  }

  @Test func anExponentialBackoffDoublesUpToItsCap() async throws {
    let clock = TestClock()
    let times = AttemptTimes()
    let backoff = Backoff.exponential(initial: .seconds(1), maximum: .seconds(5))
    let chart = try flaky(failures: 5, retries: 5, backoff: backoff, clock: clock, times: times)
    async let result = chart.run(with: Job(), clock: clock)
    try await passDelays(5, on: clock)
    _ = try await result
    // Delays 1, 2, 4, 5, 5.
    #expect(times.all == [0, 1, 3, 7, 12, 17].map { Duration.seconds($0) })
    #expect((1...5).map(backoff.delay(beforeRetry:)) == [1, 2, 4, 5, 5].map { .seconds($0) })
  }

  @Test func aSeededJitterGivesTheSameDelaysEveryRun() async throws {
    let backoff = Backoff.exponential(initial: .seconds(1), maximum: .seconds(8))
      .jittered(seed: 42)
    let delays = (1...4).map(backoff.delay(beforeRetry:))
    #expect(delays == (1...4).map(backoff.delay(beforeRetry:)))
    let plain = Backoff.exponential(initial: .seconds(1), maximum: .seconds(8))
    for retry in 1...4 {
      #expect(delays[retry - 1] >= .zero)
      #expect(delays[retry - 1] <= plain.delay(beforeRetry: retry))
    }
    // Another seed spreads them differently.
    let other = Backoff.exponential(initial: .seconds(1), maximum: .seconds(8)).jittered(seed: 43)
    #expect((1...4).map(other.delay(beforeRetry:)) != delays)
    let equal = Backoff.fixed(.seconds(2)).jittered(.equal, seed: 42)
    for retry in 1...4 {
      #expect(equal.delay(beforeRetry: retry) >= .seconds(1))
      #expect(equal.delay(beforeRetry: retry) <= .seconds(2))
    }

    let clock = TestClock()
    let times = AttemptTimes()
    let chart = try flaky(failures: 4, retries: 4, backoff: backoff, clock: clock, times: times)
    async let result = chart.run(with: Job(), clock: clock)
    try await passDelays(4, on: clock)
    _ = try await result
    var expected: [Duration] = [.zero]
    for delay in delays { expected.append(expected[expected.count - 1] + delay) }
    #expect(times.all == expected)
  }

  @Test func aStateThatFailsEveryAttemptFailsAfterItsRetries() async throws {
    let clock = TestClock()
    let times = AttemptTimes()
    let chart = try flaky(
      failures: 10, retries: 2, backoff: .fixed(.seconds(1)), clock: clock, times: times)
    let task = Task { try await chart.run(with: Job(), clock: clock) }
    try await passDelays(2, on: clock)
    let error = await #expect(throws: RunError.self) { try await task.value }
    #expect(error?.kind == .thrown)
    #expect(times.all.count == 3)
    let description = error?.description ?? ""
    #expect(
      description.hasPrefix(
        "The run stopped at action 'Upload' (FlowchartTests/ModifierClockTests.swift:"))
    #expect(
      description.contains(
        "it threw FlowchartTests.Glitch.transient. (It failed all 3 attempts.)"))
  }

  // MARK: - Timeouts

  // swift-format-ignore
  @Test func aStateThatOutlivesItsTimeoutFailsTimedOut() async throws {
    let clock = TestClock()
    let chart = try Flowchart<Job> {
      Action("Fetch", isFinal: true) { job in
        job.log.append("fetching")
        try await clock.sleep(for: .seconds(60))
      }
      .timeout(.seconds(5))
    }
    let task = Task { try await chart.run(with: Job(), clock: clock) }
    // The code's sleep and the timeout's.
    try await clock.waitForSleepers(2)
    clock.advance(by: .seconds(5))
    let error = await #expect(throws: RunError.self) { try await task.value }
    #expect(error?.kind == .timedOut)
    #expect(error?.stateName == "Fetch")
    let timeout = error?.underlyingError as? StateTimeoutError
    #expect(timeout?.stateName == "Fetch")
    #expect(timeout?.limit == .seconds(5))
    #expect(
      error?.description.contains(
        "): it did not finish within its timeout of 5s, so its code was cancelled. Raise the timeout, retry it, or catch StateTimeoutError to go on elsewhere."
      ) == true)
  }

  // swift-format-ignore
  @Test func aStateThatFinishesInTimeKeepsItsChanges() async throws {
    let clock = TestClock()
    let chart = try Flowchart<Job> {
      Action("Fetch", isFinal: true) { job in
        try await clock.sleep(for: .seconds(1))
        job.log.append("fetched")
      }
      .timeout(.seconds(5))
    }
    async let result = chart.run(with: Job(), clock: clock)
    try await clock.waitForSleepers(2)
    clock.advance(by: .seconds(1))
    let ended = try await result
    #expect(ended.context.log == ["fetched"])
  }

  // swift-format-ignore
  @Test func theRunWaitsForCodeThatIgnoresItsCancellation() async throws {
    let clock = TestClock()
    let gate = Gate()
    let recorder = Recorder()
    let chart = try Flowchart<Job> {
      Action("Stubborn") { job in
        recorder.append("started")
        // It returns only once the timeout cancelled it, and then as if it had not been.
        await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.open() }
        job.log.append("late")
        recorder.append("returned")
      }
      .timeout(.seconds(5))
      .catch(StateTimeoutError.self, goTo: "Timed out") { job, timeout in
        recorder.append("caught \(timeout)")
      }
      Action("Done", isFinal: true)
      Action("Timed out", isFinal: true)
    }
    async let result = chart.run(with: Job(), clock: clock)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(5))
    let ended = try await result
    #expect(ended.finalStateName == "Timed out")
    // The late code's change is dropped, and the route is taken only once it returned.
    #expect(ended.context.log == [])
    #expect(recorder.all.suffix(2) == ["returned", "caught 'Stubborn' did not finish within 5s"])
  }

  // swift-format-ignore
  @Test func aTimedOutAttemptIsRetried() async throws {
    let clock = TestClock()
    let times = AttemptTimes()
    let chart = try Flowchart<Job> {
      Action("Fetch", isFinal: true) { _ in
        times.record(clock)
        try await clock.sleep(for: .seconds(60))
      }
      .timeout(.seconds(5))
      .retry(1, if: { $0 is StateTimeoutError })
    }
    let task = Task { try await chart.run(with: Job(), clock: clock) }
    for _ in 0..<2 {
      try await clock.waitForSleepers(2)
      clock.advance(by: .seconds(5))
    }
    let error = await #expect(throws: RunError.self) { try await task.value }
    #expect(error?.kind == .timedOut)
    #expect(times.all == [.zero, .seconds(5)])
    #expect(error?.description.contains("(It failed all 2 attempts.)") == true)
  }

  // MARK: - Cancellation

  // swift-format-ignore
  @Test func cancellingARunDuringABackoffEndsItCancelled() async throws {
    let clock = TestClock()
    let attempts = AttemptCounter()
    let chart = try Flowchart<Job> {
      Action("Upload", isFinal: true) { _ in
        _ = attempts.next()
        throw Glitch.transient
      }
      .retry(3, backoff: .fixed(.seconds(10)))
      .catch(goTo: "Report")
      Action("Report", isFinal: true)
    }
    let task = Task { try await chart.run(with: Job(), clock: clock) }
    try await clock.waitForSleepers(1)
    task.cancel()
    let error = await #expect(throws: RunError.self) { try await task.value }
    #expect(error?.kind == .cancelled)
    #expect(error?.stateName == "Upload")
    #expect(attempts.value == 1)
  }

  // swift-format-ignore
  @Test func cancellingARunDuringATimedWaitEndsItCancelled() async throws {
    let clock = TestClock()
    let chart = try Flowchart<Job> {
      Action("Fetch", isFinal: true) { _ in try await clock.sleep(for: .seconds(60)) }
        .timeout(.seconds(5))
        .retry(2)
        .catch(goTo: "Report")
      Action("Report", isFinal: true)
    }
    let task = Task { try await chart.run(with: Job(), clock: clock) }
    try await clock.waitForSleepers(2)
    task.cancel()
    let error = await #expect(throws: RunError.self) { try await task.value }
    #expect(error?.kind == .cancelled)
    #expect(error?.underlyingError is CancellationError)
  }

  // MARK: - Live runs

  // swift-format-ignore
  @Test func aLiveRunLogsEveryAttemptRetryAndCatch() async throws {
    let clock = TestClock()
    let attempts = AttemptCounter()
    let chart = try Flowchart<Job> {
      Action("Upload") { job in
        job.log.append("attempt \(attempts.next())")
        throw Glitch.transient
      }
      .retry(2, backoff: .exponential(initial: .seconds(1), maximum: .seconds(10)))
      .catch(goTo: "Report") { job, error in job.failure = "\(error)" }
      Action("Done", isFinal: true)
      Action("Report", isFinal: true)
    }
    let handle = chart.start(with: Job(), clock: clock, isPaused: true, isLogged: true)
    let events = handle.events()
    handle.resume()
    try await passDelays(2, on: clock)
    _ = try await handle.result
    var lines: [String] = []
    for await event in events { lines.append(event.line) }
    #expect(
      lines == [
        "Upload: run started",
        "Upload: entered",
        "Upload: attempt 1 failed: FlowchartTests.Glitch.transient",
        "Upload: attempt 2 after 1.000s",
        "Upload: attempt 2 failed: FlowchartTests.Glitch.transient",
        "Upload: attempt 3 after 2.000s",
        "Upload: caught FlowchartTests.Glitch.transient, going to 'Report'",
        "Report: entered",
        "Report: finished",
        "Report: run finished",
      ])
    expectText(
      handle.log.description,
      matches: """
          0.000s  run started at 'Upload'
          0.000s  entered 'Upload'
          0.000s  'Upload' attempt 1 failed in 0.000s: FlowchartTests.Glitch.transient
          0.000s  'Upload' starts attempt 2 after 1.000s
          1.000s  'Upload' attempt 2 failed in 1.000s: FlowchartTests.Glitch.transient
          1.000s  'Upload' starts attempt 3 after 2.000s
          3.000s  'Upload' failed in 3.000s, caught: FlowchartTests.Glitch.transient; going to 'Report'
          3.000s  entered 'Report'
          3.000s  'Report' finished in 0.000s
                    failure: nil → "transient"
          3.000s  run finished at 'Report', after 2 states
        """)
  }

  @Test func aRetriedLiveRunWaitsItsBackoffOnTheRetrysClock() async throws {
    // Fails three times: two attempts in the first run, one more in the retried run, whose
    // backoff the retry's clock must time (a real clock would wait an hour).
    let attempts = AttemptCounter()
    let chart = try Flowchart<Job> {
      Action("Upload", isFinal: true) { job in
        if attempts.next() <= 3 { throw Glitch.transient }
        job.log.append("uploaded")
      }
      .retry(1, backoff: .fixed(.seconds(3600)))
    }
    let first = TestClock()
    let handle = chart.start(with: Job(), clock: first)
    try await first.waitForSleepers(1)
    first.advance(by: .seconds(3600))
    _ = await #expect(throws: RunError.self) { try await handle.result }

    let second = TestClock()
    let retried = try handle.retry(clock: second)
    try await second.waitForSleepers(1)
    second.advance(by: .seconds(3600))
    let result = try await retried.result
    #expect(result.context.log == ["uploaded"])
    #expect(attempts.value == 4)
  }
}
