import Flowchart
import Testing

/// Every public numeric and duration parameter of the DSL, of live runs, of modifiers, of
/// maps and of dispatches, at its extremes: 0, 1, −1, `.min`, `.max`, the largest
/// `Duration`, and NaN and ±infinity where a `Double` is taken. Each must give a clear error
/// or its documented behaviour, never a trap (issue 27).
///
/// Each case runs in a child process (an exit test), so that a trap fails its case instead
/// of ending the test run; the child checks the outcome and exits with a failure, its
/// message on standard error, when it is not the expected one. No case sleeps: a duration
/// is checked where the chart is compiled, or a run ends before its clock matters.
@Suite(.timeLimit(.minutes(5)))
struct ExtremeValueTests {
  @Test(arguments: Extreme.allCases)
  func neverTraps(_ extreme: Extreme) async {
    let result = await #expect(
      processExitsWith: .success, observing: [\.standardErrorContent]
    ) { [extreme] in
      try await extreme.check()
    }
    if let result, result.exitStatus != .exitCode(0) {
      Issue.record(
        "\(extreme): \(String(decoding: result.standardErrorContent, as: UTF8.self))")
    }
  }
}

/// The largest `Duration` the public API makes: about 1.7e20 seconds, near `Int128.max`
/// attoseconds.
private let largestDuration = Duration.seconds(Int64.max) * 18
private let smallestDuration = Duration.seconds(Int64.min) * 18
private let longestWait = Duration.seconds(1_000_000_000)

/// One parameter at one extreme.
enum Extreme: String, CaseIterable, Codable, Sendable {
  // Timeouts
  case timeoutZero, timeoutMinusOneNanosecond, timeoutOneNanosecond, timeoutLongestWait
  case timeoutJustOverLongestWait, timeoutInt64MaxSeconds, timeoutLargest, timeoutSmallest
  // Retry counts
  case retryMinusOne, retryIntMin, retryZero, retryOne, retryIntMax
  // Fixed backoffs
  case fixedZero, fixedMinusOneNanosecond, fixedLongestWait, fixedInt64MaxSeconds
  case fixedLargest, fixedSmallest
  // Exponential backoffs
  case exponentialInitialNegative, exponentialInitialLargest, exponentialMaximumInt64Max
  case exponentialMaximumSmallest, exponentialMultiplierHuge, exponentialMultiplierGreatest
  case exponentialMultiplierOne, exponentialMultiplierNaN, exponentialMultiplierInfinity
  case exponentialMultiplierMinusInfinity, exponentialMultiplierMinusOne
  case exponentialMultiplierZero, exponentialMultiplierHalf
  // Backoff.delay(beforeRetry:) and the description of any backoff
  case delayOfAnyBackoff, jitterSeedExtremes
  // Step limits
  case stepLimitIntMin, stepLimitMinusOne, stepLimitZero, stepLimitOne, stepLimitIntMax
  case liveStepLimitIntMin, liveStepLimitIntMax, subflowStepLimitIntMin, mapStepLimitIntMin
  // Event buffers
  case eventsIntMin, eventsMinusOne, eventsZero, eventsOne, eventsTenMillion
  case eventsBillion, eventsIntMax
  // Maps
  case mapMaxConcurrencyIntMin, mapMaxConcurrencyMinusOne, mapMaxConcurrencyZero
  case mapMaxConcurrencyOne, mapMaxConcurrencyIntMax
  case mapToleratedIntMin, mapToleratedMinusOne, mapToleratedZero, mapToleratedIntMax
  // Dispatches
  case dispatchMaxConcurrencyIntMin, dispatchMaxConcurrencyZero, dispatchMaxConcurrencyOne
  case dispatchMaxConcurrencyIntMax, toleratingFailuresIntMin, toleratingFailuresIntMax
  case quorumIntMin, quorumZero, quorumIntMax
  // Starting states
  case startStateIntMin, startStateIntMax, startStateMinusOne

  // swift-format-ignore
  func check() async throws {
    switch self {
    case .timeoutZero: try expectModifierError(timeout: .zero, saying: "has a timeout of 0s")
    case .timeoutMinusOneNanosecond:
      try expectModifierError(timeout: .nanoseconds(-1), saying: "has a timeout of -1ns")
    case .timeoutOneNanosecond:
      let chart = try Flowchart<Sample> { Action("Fetch", isFinal: true) { _ in }.timeout(.nanoseconds(1)) }
      require(chart.treeDescription.contains("timeout 1ns"), "\(chart)")
    case .timeoutLongestWait:
      // The code returns at once; the timeout's sleep on a ContinuousClock is cancelled.
      let chart = try Flowchart<Sample> {
        Action("Fetch", isFinal: true) { box in await Task.yield(); box.count = 1 }.timeout(longestWait)
      }
      require(try await chart.run(with: Sample()).context.count == 1, "the run did not end")
    case .timeoutJustOverLongestWait:
      try expectModifierError(timeout: longestWait + .nanoseconds(1), saying: "longer than the longest wait")
    case .timeoutInt64MaxSeconds:
      try expectModifierError(timeout: .seconds(Int64.max), saying: "9223372036854775807s")
    case .timeoutLargest:
      try expectModifierError(timeout: largestDuration, saying: "longer than the longest wait")
    case .timeoutSmallest:
      try expectModifierError(timeout: smallestDuration, saying: "Give a limit greater than zero")

    case .retryMinusOne: try expectModifierError(retries: -1, saying: "retries -1 times")
    case .retryIntMin: try expectModifierError(retries: .min, saying: "retries -9223372036854775808 times")
    case .retryZero: try expectFlakyRun(retries: 0, failures: 1, succeeds: false)
    case .retryOne: try expectFlakyRun(retries: 1, failures: 1, succeeds: true)
    case .retryIntMax: try expectFlakyRun(retries: .max, failures: 3, succeeds: true)

    case .fixedZero: try expectFlakyRun(retries: 2, failures: 2, succeeds: true, backoff: .fixed(.zero))
    case .fixedMinusOneNanosecond:
      try expectModifierError(backoff: .fixed(.nanoseconds(-1)), saying: "waits a negative time, -1ns")
    case .fixedLongestWait:
      _ = try Flowchart<Sample> { Action("Send", isFinal: true) { _ in }.retry(1, backoff: .fixed(longestWait)) }
      require(Backoff.fixed(longestWait).delay(beforeRetry: .max) == longestWait, "fixed delay")
    case .fixedInt64MaxSeconds:
      try expectModifierError(backoff: .fixed(.seconds(Int64.max)), saying: "longer than the longest wait")
    case .fixedLargest:
      try expectModifierError(backoff: .fixed(largestDuration), saying: "longer than the longest wait")
    case .fixedSmallest:
      try expectModifierError(backoff: .fixed(smallestDuration), saying: "waits a negative time")

    case .exponentialInitialNegative:
      try expectModifierError(
        backoff: .exponential(initial: .nanoseconds(-1), maximum: .seconds(1)), saying: "starts at a negative time")
    case .exponentialInitialLargest:
      try expectModifierError(
        backoff: .exponential(initial: largestDuration, maximum: .seconds(1)), saying: "longer than the longest wait")
    case .exponentialMaximumInt64Max:
      try expectModifierError(
        backoff: .exponential(initial: .milliseconds(1), multiplier: 1e300, maximum: .seconds(Int64.max)),
        saying: "waits up to 9223372036854775807s")
    case .exponentialMaximumSmallest:
      try expectModifierError(
        backoff: .exponential(initial: .zero, maximum: smallestDuration), saying: "waits up to a negative time")
    case .exponentialMultiplierHuge:
      let backoff = Backoff.exponential(initial: .milliseconds(1), multiplier: 1e300, maximum: longestWait)
      _ = try Flowchart<Sample> { Action("Send", isFinal: true) { _ in }.retry(5, backoff: backoff) }
      let delays = [1, 2, 3, .max].map(backoff.delay(beforeRetry:))
      require(delays == [.milliseconds(1), longestWait, longestWait, longestWait], "\(delays)")
    case .exponentialMultiplierGreatest:
      let backoff = Backoff.exponential(
        initial: .nanoseconds(1), multiplier: .greatestFiniteMagnitude, maximum: .seconds(1))
      _ = try Flowchart<Sample> { Action("Send", isFinal: true) { _ in }.retry(5, backoff: backoff) }
      require(backoff.delay(beforeRetry: .max) == .seconds(1), "delay")
    case .exponentialMultiplierOne:
      let backoff = Backoff.exponential(initial: .seconds(1), multiplier: 1, maximum: .seconds(5))
      _ = try Flowchart<Sample> { Action("Send", isFinal: true) { _ in }.retry(5, backoff: backoff) }
      require(backoff.delay(beforeRetry: .max) == .seconds(1), "delay")
    case .exponentialMultiplierNaN: try expectMultiplierError(.nan)
    case .exponentialMultiplierInfinity: try expectMultiplierError(.infinity)
    case .exponentialMultiplierMinusInfinity: try expectMultiplierError(-.infinity)
    case .exponentialMultiplierMinusOne: try expectMultiplierError(-1)
    case .exponentialMultiplierZero: try expectMultiplierError(0)
    case .exponentialMultiplierHalf: try expectMultiplierError(0.5)

    case .delayOfAnyBackoff:
      let durations = [Duration.zero, .nanoseconds(1), .nanoseconds(-1), longestWait, largestDuration, smallestDuration]
      let multipliers = [0, 1, 2, 1e300, .greatestFiniteMagnitude, .nan, .infinity, -.infinity, -2]
      var backoffs: [Backoff] = [.immediate] + durations.map(Backoff.fixed)
      for initial in durations {
        for maximum in durations {
          for multiplier in multipliers {
            backoffs.append(.exponential(initial: initial, multiplier: multiplier, maximum: maximum))
          }
        }
      }
      for backoff in backoffs {
        for spread in [backoff, backoff.jittered(seed: 7), backoff.jittered(.equal, seed: 7), backoff.jittered()] {
          for retry in [Int.min, -1, 0, 1, 2, 63, 64, .max] { _ = spread.delay(beforeRetry: retry) }
          _ = spread.description
        }
      }
    case .jitterSeedExtremes:
      let backoff = Backoff.fixed(.seconds(2))
      for seed in [UInt64.min, 1, .max] {
        for jitter in [Backoff.Jitter.full, .equal] {
          for retry in [Int.min, 0, 1, .max] {
            let delay = backoff.jittered(jitter, seed: seed).delay(beforeRetry: retry)
            require(delay >= .zero && delay <= .seconds(2), "\(delay)")
          }
        }
      }

    case .stepLimitIntMin: try await expectInvalidStepLimit(.min)
    case .stepLimitMinusOne: try await expectInvalidStepLimit(-1)
    case .stepLimitZero:
      let chart = try oneState()
      do {
        _ = try await chart.run(with: Sample(), stepLimit: 0)
        require(false, "a run with a step limit of 0 entered a state")
      } catch {
        require(error.kind == .stepLimitExceeded, "\(error)")
      }
    case .stepLimitOne: require(try await oneState().run(with: Sample(), stepLimit: 1).context.count == 1, "run")
    case .stepLimitIntMax:
      require(try await oneState().run(with: Sample(), stepLimit: .max).context.count == 1, "run")
      require(try oneState().runSynchronously(with: Sample(), stepLimit: .max).context.count == 1, "run")
    case .liveStepLimitIntMin:
      let chart = try oneState()
      do {
        _ = try await chart.start(with: Sample(), stepLimit: .min).result
        require(false, "a live run with a step limit of Int.min ran")
      } catch {
        require(error.kind == .invalidStepLimit, "\(error)")
      }
    case .liveStepLimitIntMax:
      let result = try await oneState().start(with: Sample(), stepLimit: .max).result
      require(result.context.count == 1, "run")
    case .subflowStepLimitIntMin:
      let inner = try oneState()
      let chart = try Flowchart<Sample> {
        Subflow("Inner", isFinal: true, running: inner, context: .whole, stepLimit: .min)
      }
      do {
        _ = try await chart.run(with: Sample())
        require(false, "the subflow ran")
      } catch {
        require(error.kind == .invalidStepLimit, "\(error)")
      }
    case .mapStepLimitIntMin:
      let chart = try Flowchart<Sample> {
        Map("Each", isFinal: true, over: { $0.items }, running: doubling, stepLimit: .min) { box, results in
          box.items = results.outputs
        }
      }
      do {
        _ = try await chart.run(with: Sample(items: [1]))
        require(false, "the map ran")
      } catch {
        require(error.kind == .invalidStepLimit, "\(error)")
      }

    case .eventsIntMin: try await expectEveryRunEnds(bufferingNewest: .min)
    case .eventsMinusOne: try await expectEveryRunEnds(bufferingNewest: -1)
    case .eventsZero: try await expectEveryRunEnds(bufferingNewest: 0)
    case .eventsOne: try await expectEveryRunEnds(bufferingNewest: 1)
    case .eventsTenMillion: try await expectEveryRunEnds(bufferingNewest: 10_000_000)
    case .eventsBillion: try await expectEveryRunEnds(bufferingNewest: 1_000_000_000)
    case .eventsIntMax: try await expectEveryRunEnds(bufferingNewest: .max)

    case .mapMaxConcurrencyIntMin: try expectMapError(maxConcurrency: .min, saying: "maxConcurrency of -9223372036854775808")
    case .mapMaxConcurrencyMinusOne: try expectMapError(maxConcurrency: -1, saying: "maxConcurrency of -1")
    case .mapMaxConcurrencyZero: try expectMapError(maxConcurrency: 0, saying: "maxConcurrency of 0")
    case .mapMaxConcurrencyOne: try await expectMapRuns(maxConcurrency: 1)
    case .mapMaxConcurrencyIntMax: try await expectMapRuns(maxConcurrency: .max)
    case .mapToleratedIntMin: try expectMapError(tolerated: .min, saying: "toleratedFailures of -9223372036854775808")
    case .mapToleratedMinusOne: try expectMapError(tolerated: -1, saying: "toleratedFailures of -1")
    case .mapToleratedZero: try await expectMapRuns(tolerated: 0)
    case .mapToleratedIntMax: try await expectMapRuns(tolerated: .max)

    case .dispatchMaxConcurrencyIntMin:
      try expectDispatchError(maxConcurrency: .min, join: .all, saying: "maxConcurrency of -9223372036854775808")
    case .dispatchMaxConcurrencyZero:
      try expectDispatchError(maxConcurrency: 0, join: .all, saying: "maxConcurrency of 0")
    case .dispatchMaxConcurrencyOne: try await expectDispatchRuns(maxConcurrency: 1, join: .all)
    case .dispatchMaxConcurrencyIntMax: try await expectDispatchRuns(maxConcurrency: .max, join: .all)
    case .toleratingFailuresIntMin:
      try expectDispatchError(maxConcurrency: nil, join: .toleratingFailures(.min), saying: "fewer than no failures")
    case .toleratingFailuresIntMax: try await expectDispatchRuns(maxConcurrency: nil, join: .toleratingFailures(.max))
    case .quorumIntMin: try expectDispatchError(maxConcurrency: nil, join: .quorum(.min), saying: "Give it 1 or more")
    case .quorumZero: try expectDispatchError(maxConcurrency: nil, join: .quorum(0), saying: "Give it 1 or more")
    case .quorumIntMax: try expectDispatchError(maxConcurrency: nil, join: .quorum(.max), saying: "only 2 branches")

    case .startStateIntMin: try await expectInvalidStart(StateID(Int.min))
    case .startStateIntMax: try await expectInvalidStart(StateID(Int.max))
    case .startStateMinusOne: try await expectInvalidStart(StateID(-1))
    }
  }
}

// MARK: - What the children check

private struct Sample: Sendable {
  var count = 0
  var items: [Int] = []
}

/// Ends the child with `message` on standard error when `condition` is false: the exit
/// test then fails, with the message.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fatalError(message()) }
}

private let doubling = try! Flowchart<Int> { Action("Double", isFinal: true) { $0 *= 2 } }

private func oneState() throws -> Flowchart<Sample> {
  try Flowchart<Sample> { Action("Count", isFinal: true) { $0.count += 1 } }
}

/// Compiles `make`, which must fail with one problem of `kind` whose message holds
/// `phrase`.
private func expectDefinitionError(
  _ kind: DefinitionError.Kind, saying phrase: String, _ make: () throws -> Flowchart<Sample>
) throws {
  do {
    let chart = try make()
    require(false, "compiled:\n\(chart)")
  } catch let error as DefinitionError {
    require(error.problems.count == 1, "\(error)")
    require(error.problems[0].kind == kind, "\(error)")
    require(error.problems[0].message.contains(phrase), "«\(phrase)» not in \(error)")
  }
}

private func expectModifierError(timeout: Duration, saying phrase: String) throws {
  try expectDefinitionError(.invalidModifier, saying: phrase) {
    try Flowchart<Sample> {
      Action("Fetch", isFinal: true) { _ in await Task.yield() }.timeout(timeout)
    }
  }
}

private func expectModifierError(retries: Int, saying phrase: String) throws {
  try expectDefinitionError(.invalidModifier, saying: phrase) {
    try Flowchart<Sample> { Action("Send", isFinal: true) { _ in }.retry(retries) }
  }
}

private func expectModifierError(backoff: Backoff, saying phrase: String) throws {
  try expectDefinitionError(.invalidModifier, saying: phrase) {
    try Flowchart<Sample> { Action("Send", isFinal: true) { _ in }.retry(1, backoff: backoff) }
  }
  _ = backoff.description
}

private func expectMultiplierError(_ multiplier: Double) throws {
  try expectModifierError(
    backoff: .exponential(initial: .seconds(1), multiplier: multiplier, maximum: .seconds(2)),
    saying: "give a finite multiplier of 1 or more")
}

/// A chart whose code fails its first `failures` attempts, retried `retries` times, run
/// synchronously.
private func expectFlakyRun(
  retries: Int, failures: Int, succeeds: Bool, backoff: Backoff = .immediate
) throws {
  let attempts = AttemptCounter()
  let chart = try Flowchart<Sample> {
    Action("Send", isFinal: true) { box in
      if attempts.next() <= failures { throw Glitch.transient }
      box.count = 1
    }
    .retry(retries, backoff: backoff)
  }
  _ = chart.treeDescription
  do {
    let result = try chart.runSynchronously(with: Sample())
    require(succeeds && result.context.count == 1, "the run succeeded")
  } catch {
    require(!succeeds && error.underlyingError as? Glitch == .transient, "\(error)")
  }
}

private func expectInvalidStepLimit(_ limit: Int) async throws {
  let chart = try oneState()
  do {
    _ = try await chart.run(with: Sample(), stepLimit: limit)
    require(false, "a run with a step limit of \(limit) ran")
  } catch {
    require(error.kind == .invalidStepLimit, "\(error)")
    require(error.description.contains("a step limit of \(limit) state"), error.description)
  }
  do {
    _ = try chart.runSynchronously(with: Sample(), stepLimit: limit)
    require(false, "a synchronous run with a step limit of \(limit) ran")
  } catch {
    require(error.kind == .invalidStepLimit, "\(error)")
  }
}

/// A live run that reports a payload event (a retry), read by a stream that buffers
/// `limit` events: the stream ends with the run's end.
private func expectEveryRunEnds(bufferingNewest limit: Int) async throws {
  let attempts = AttemptCounter()
  let chart = try Flowchart<Sample> {
    Action("Flaky") { _ in if attempts.next() == 1 { throw Glitch.transient } }.retry(1)
    Action("Done", isFinal: true) { $0.count = 1 }
  }
  let handle = chart.start(with: Sample(), isPaused: true)
  let events = handle.events(bufferingNewest: limit)
  handle.resume()
  var last: RunEvent?
  var count = 0
  for await event in events {
    last = event
    count += 1
  }
  guard case .runFinished = last?.kind else {
    return require(false, "last event: \(String(describing: last))")
  }
  // How many arrive depends on how the reader keeps up (the limit bounds those waiting,
  // not those delivered): at least the run's end.
  require(count >= 1, "\(count) events for a limit of \(limit)")
}

private func map(maxConcurrency: Int?, tolerated: Int) throws -> Flowchart<Sample> {
  try Flowchart<Sample> {
    Map(
      "Each", isFinal: true, over: { $0.items }, running: doubling, maxConcurrency: maxConcurrency,
      toleratedFailures: tolerated
    ) { box, results in box.items = results.outputs }
  }
}

private func expectMapError(maxConcurrency: Int? = nil, tolerated: Int = 0, saying phrase: String)
  throws
{
  try expectDefinitionError(.invalidMapOption, saying: phrase) {
    try map(maxConcurrency: maxConcurrency, tolerated: tolerated)
  }
}

private func expectMapRuns(maxConcurrency: Int? = nil, tolerated: Int = 0) async throws {
  let chart = try map(maxConcurrency: maxConcurrency, tolerated: tolerated)
  let result = try await chart.run(with: Sample(items: [1, 2, 3]))
  require(result.context.items == [2, 4, 6], "\(result.context.items)")
}

private func dispatch(maxConcurrency: Int?, join: JoinPolicy) throws -> Flowchart<Sample> {
  try Flowchart<Sample> {
    Dispatch("Fan out", maxConcurrency: maxConcurrency, join: join) { box, branch in
      box.count += branch.count
    } branches: {
      Branch { Action("One", isFinal: true) { $0.count += 1 } }
      Branch { Action("Two", isFinal: true) { $0.count += 1 } }
    }
    Action("Joined", isFinal: true)
  }
}

private func expectDispatchError(maxConcurrency: Int?, join: JoinPolicy, saying phrase: String)
  throws
{
  try expectDefinitionError(.invalidDispatchOption, saying: phrase) {
    try dispatch(maxConcurrency: maxConcurrency, join: join)
  }
}

private func expectDispatchRuns(maxConcurrency: Int?, join: JoinPolicy) async throws {
  let chart = try dispatch(maxConcurrency: maxConcurrency, join: join)
  require(try await chart.run(with: Sample()).context.count == 2, "dispatch")
  require(try chart.runSynchronously(with: Sample()).context.count == 2, "dispatch")
}

private func expectInvalidStart(_ start: StateID) async throws {
  let chart = try oneState()
  do {
    _ = try await chart.run(with: Sample(), startingAt: start)
    require(false, "a run started at \(start)")
  } catch {
    require(error.description.contains("cannot start at"), "\(error)")
  }
}
