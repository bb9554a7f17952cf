import FlowchartTesting
import Testing

@testable import Flowchart

/// Values the API accepts that used to trap or cost without bound (issue 27): each test
/// failed before its fix. ``ExtremeValueTests`` drives every parameter at its extremes in
/// child processes; these check the behaviour and the wording.
@Suite(.timeLimit(.minutes(5)))
struct BoundedValueTests {
  struct Box: Sendable {
    var count = 0
    var items: [Int] = []
  }

  // MARK: - Modifier durations

  @Test func aTimeoutLongerThanTheLongestWaitIsADefinitionError() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Box> {
        Action("Fetch", isFinal: true) { _ in await Task.yield() }.timeout(.seconds(Int64.max))
      }
    }
    expectOnlyProblem(
      error, .invalidModifier, name: "Fetch", line: line,
      saying: [
        "has a timeout of 9223372036854775807s", "longer than the longest wait",
        "1000000000s (about 31 years)",
      ])
  }

  @Test func theLongestWaitItselfIsAccepted() throws {
    let chart = try Flowchart<Box> {
      Action("Fetch", isFinal: true) { _ in await Task.yield() }
        .timeout(.seconds(1_000_000_000))
        .retry(1, backoff: .fixed(.seconds(1_000_000_000)))
    }
    #expect(chart.treeDescription.contains("timeout 1000000000s"))
  }

  @Test func aFixedBackoffLongerThanTheLongestWaitIsADefinitionError() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Box> {
        Action("Send", isFinal: true) { _ in }.retry(1, backoff: .fixed(.seconds(Int64.max)))
      }
    }
    expectOnlyProblem(
      error, .invalidModifier, name: "Send", line: line,
      saying: ["has a retry backoff that waits 9223372036854775807s, longer than the longest wait"])
  }

  @Test func theIssuesExponentialBackoffIsADefinitionError() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Box> {
        Action("Send", isFinal: true) { _ in }
          .retry(
            5,
            backoff: .exponential(
              initial: .milliseconds(1), multiplier: 1e300, maximum: .seconds(Int64.max)))
      }
    }
    expectOnlyProblem(
      error, .invalidModifier, name: "Send", line: line,
      saying: ["waits up to 9223372036854775807s, longer than the longest wait"])
  }

  @Test(arguments: [Double.nan, .infinity, -.infinity, -1, 0, 0.5])
  func aMultiplierThatIsNotAFiniteNumberOfOneOrMoreIsADefinitionError(multiplier: Double) {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Box> {
        Action("Send", isFinal: true) { _ in }
          .retry(
            1,
            backoff: .exponential(
              initial: .seconds(1), multiplier: multiplier, maximum: .seconds(2)))
      }
    }
    expectOnlyProblem(
      error, .invalidModifier, name: "Send", line: line,
      saying: ["multiplies by \(multiplier): give a finite multiplier of 1 or more"])
  }

  @Test func anExponentialDelayIsWorkedOutInOneStepAndStopsAtItsMaximum() {
    let doubling = Backoff.exponential(initial: .seconds(1), maximum: .seconds(5))
    #expect((1...5).map(doubling.delay(beforeRetry:)) == [1, 2, 4, 5, 5].map(Duration.seconds))
    #expect(doubling.delay(beforeRetry: 100_000_000) == .seconds(5))
    #expect(doubling.delay(beforeRetry: .max) == .seconds(5))
    // Below 1 counts as the first retry.
    #expect(doubling.delay(beforeRetry: 0) == .seconds(1))
    #expect(doubling.delay(beforeRetry: .min) == .seconds(1))
    let huge = Backoff.exponential(
      initial: .milliseconds(1), multiplier: 1e300, maximum: .seconds(10))
    #expect(
      (1...3).map(huge.delay(beforeRetry:)) == [.milliseconds(1), .seconds(10), .seconds(10)])
    let tripling = Backoff.exponential(
      initial: .milliseconds(1), multiplier: 3, maximum: .seconds(1_000_000_000))
    #expect(tripling.delay(beforeRetry: 11) == .milliseconds(59_049))
    #expect(tripling.delay(beforeRetry: .max) == .seconds(1_000_000_000))
  }

  @Test func aDelayOfABackoffTheCompilerRejectsIsStillADuration() {
    let largest = Duration.seconds(Int64.max) * 18
    let backoffs: [Backoff] = [
      .fixed(largest), .fixed(.zero - largest),
      .exponential(initial: .nanoseconds(1), multiplier: .infinity, maximum: largest),
      .exponential(initial: largest, multiplier: .nan, maximum: largest),
      .exponential(initial: .seconds(1), multiplier: -3, maximum: .seconds(9)),
      .exponential(initial: .zero - largest, multiplier: 2, maximum: .zero - largest),
    ]
    for backoff in backoffs {
      for jittered in [backoff, backoff.jittered(seed: 1), backoff.jittered(.equal, seed: .max)] {
        for retry in [Int.min, -1, 0, 1, 2, 64, .max] {
          _ = jittered.delay(beforeRetry: retry)
        }
        _ = jittered.description
      }
    }
    #expect(
      Backoff.exponential(initial: .seconds(1), multiplier: .nan, maximum: .seconds(9))
        .delay(beforeRetry: 5) == .seconds(1))
  }

  // MARK: - Durations in messages

  @Test(arguments: [
    (Duration.nanoseconds(1), "1ns"), (.nanoseconds(1_500), "1.5µs"),
    (.microseconds(250), "250µs"), (.nanoseconds(2_000_001), "2.000001ms"),
    (.milliseconds(250), "0.25s"), (.nanoseconds(1_000_000_500), "1.0000005s"),
    (.seconds(5), "5s"), (.zero, "0s"), (.nanoseconds(-1), "-1ns"),
    (.milliseconds(-1_500), "-1.5s"), (.seconds(Int64.max), "9223372036854775807s"),
    (Duration(secondsComponent: 0, attosecondsComponent: 1), "0.000000001ns"),
  ])
  func aDurationReadsAsWhatItIs(duration: Duration, text: String) {
    #expect(ModifierText.duration(duration) == text)
  }

  @Test func aOneNanosecondTimeoutReadsAsOneNanosecond() {
    let error = StateTimeoutError(stateName: "Fetch", limit: .nanoseconds(1))
    #expect(error.description == "'Fetch' did not finish within 1ns")
    let line = #line + 3
    let definition = definitionError {
      try Flowchart<Box> {
        Action("Fetch", isFinal: true) { _ in await Task.yield() }.timeout(.nanoseconds(-1))
      }
    }
    expectOnlyProblem(
      definition, .invalidModifier, name: "Fetch", line: line,
      saying: ["has a timeout of -1ns"])
  }

  @Test func aOneNanosecondTimeoutPrintsAsOneNanosecond() throws {
    let chart = try Flowchart<Box> {
      Action("Fetch", isFinal: true) { _ in await Task.yield() }.timeout(.nanoseconds(1))
    }
    #expect(chart.treeDescription == "Fetch (A) ! [timeout 1ns]\n")
  }

  // MARK: - Step limits and counts

  @Test func aStepLimitOfIntMinIsAnInvalidStepLimit() async throws {
    #expect(counted(.min, "state") == "-9223372036854775808 states")
    #expect(counted(-1, "state") == "-1 state")
    let chart = try Flowchart<Box> { Action("Only", isFinal: true) }
    let error = await #expect(throws: RunError.self) {
      try await chart.run(with: Box(), stepLimit: .min)
    }
    #expect(error?.kind == .invalidStepLimit)
    #expect(error?.description.contains("a step limit of -9223372036854775808 states") == true)
  }

  @Test(arguments: ["Int", "Optional<Int>", "Error", "Array<Int>"])
  func aTypeStartingWithAVowelTakesAn(type: String) {
    #expect(DisplayText.withArticle(typeName: type) == "an " + type)
  }

  @Test(arguments: ["String", "UInt8", "URL", "UUID", "Unit", "User", "Box"])
  func aTypeStartingWithAConsonantSoundTakesA(type: String) {
    #expect(DisplayText.withArticle(typeName: type) == "a " + type)
  }

  // MARK: - Maps check their options as dispatches do

  private static let inner = try! Flowchart<Int> { Action("Double", isFinal: true) { $0 *= 2 } }

  @Test(arguments: [0, -1, Int.min])
  func aMapWithAMaxConcurrencyBelowOneIsADefinitionError(limit: Int) {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Box> {
        Map(
          "Double all", isFinal: true, over: { $0.items }, running: Self.inner,
          maxConcurrency: limit
        ) { box, results in box.items = results.outputs }
      }
    }
    expectOnlyProblem(
      error, .invalidMapOption, name: "Double all", line: line,
      saying: ["has a maxConcurrency of \(limit), which would never start a run"])
  }

  @Test(arguments: [-1, Int.min])
  func aMapToleratingANegativeNumberOfFailuresIsADefinitionError(count: Int) {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Box> {
        Map(
          "Double all", isFinal: true, over: { $0.items }, running: Self.inner,
          toleratedFailures: count
        ) { box, results in box.items = results.outputs }
      }
    }
    expectOnlyProblem(
      error, .invalidMapOption, name: "Double all", line: line,
      saying: ["has toleratedFailures of \(count), which tolerates fewer than no failures"])
  }

  @Test func aMapAtTheLargestOptionsRuns() async throws {
    let chart = try Flowchart<Box> {
      Map(
        "Double all", isFinal: true, over: { $0.items }, running: Self.inner,
        maxConcurrency: .max, toleratedFailures: .max
      ) { box, results in box.items = results.outputs }
    }
    let result = try await chart.run(with: Box(items: [1, 2, 3]))
    #expect(result.context.items == [2, 4, 6])
  }

  // MARK: - Event buffers follow the events held

  private static func record(_ number: Int) -> EventRecord {
    EventRecord(time: .nanoseconds(number), state: 0, flow: 0, tag: .payload)
  }

  @Test func aReaderWithNoLimitCostsOnlyTheEventsWaiting() {
    var log = EventLog()
    let reader = log.subscribe(limit: .max)
    #expect(log.storage.slots == 0)
    for number in 0..<100 {
      _ = log.append(Self.record(number), payload: .retrying(number, after: .zero))
    }
    #expect(log.storage.held == 100)
    #expect(log.storage.slots <= 128)
    var batch: [EventRecord] = []
    var payloads: [RunEvent.Kind] = []
    #expect(log.take(for: reader, into: &batch, payloads: &payloads) == .took)
    #expect(batch.map(\.time) == (0..<100).map { .nanoseconds($0) })
    #expect(payloads.count == 100)
    #expect(log.storage.held == 0)
  }

  @Test func theRingShrinksOnceItsReaderKeepsUp() {
    var log = EventLog()
    let reader = log.subscribe(limit: 1_000_000_000)
    for number in 0..<100_000 { _ = log.append(Self.record(number)) }
    let grown = log.storage.slots
    #expect(grown >= 100_000)
    var batch: [EventRecord] = []
    var payloads: [RunEvent.Kind] = []
    // The reader keeps up, a record a take: the ring keeps its size until the run appended
    // four times its length since the last take that needed more than a quarter of it (the
    // first, of 100,001 records), then shrinks to what the takes need.
    var eachTookOne = true
    for round in 0...(4 * grown) {
      batch.removeAll()
      _ = log.append(Self.record(round))
      _ = log.take(for: reader, into: &batch, payloads: &payloads)
      eachTookOne = eachTookOne && batch.count == (round == 0 ? 100_001 : 1)
      if round == 4 * grown - 1 { #expect(log.storage.slots == grown) }
    }
    #expect(eachTookOne)
    #expect(log.storage.slots <= 64)
  }

  @Test func aReaderThatFallsBehindNowAndThenKeepsItsRing() {
    var log = EventLog()
    let reader = log.subscribe(limit: 1_000_000_000)
    var batch: [EventRecord] = []
    var payloads: [RunEvent.Kind] = []
    var grown = 0
    // Bursts of 5,000 records the reader takes at once, each followed by 100 small takes,
    // after which the ring still has the size the bursts need.
    for burst in 0..<20 {
      for number in 0..<5_000 { _ = log.append(Self.record(number)) }
      if burst == 0 { grown = log.storage.slots }
      _ = log.take(for: reader, into: &batch, payloads: &payloads)
      for number in 0..<100 {
        _ = log.append(Self.record(number))
        _ = log.take(for: reader, into: &batch, payloads: &payloads)
      }
      #expect(log.storage.slots == grown)
    }
    #expect(grown == 8_192)
    #expect(batch.count == 20 * 5_100)
  }

  @Test func anIdleReaderHoldsOnlyItsLimitAndAStoppedOneNothing() {
    var log = EventLog()
    let idle = log.subscribe(limit: 10)
    for number in 0..<1_000 { _ = log.append(Self.record(number)) }
    #expect(log.storage.held == 10)
    #expect(log.storage.slots == 16)
    var batch: [EventRecord] = []
    var payloads: [RunEvent.Kind] = []
    _ = log.take(for: idle, into: &batch, payloads: &payloads)
    #expect(batch.map(\.time) == (990..<1_000).map { .nanoseconds($0) })
    _ = log.stop(idle)
    for number in 0..<1_000 { _ = log.append(Self.record(number)) }
    #expect(log.storage == (0, 0))
  }

  @Test func twoReadersKeepWhatTheSlowerStillNeeds() {
    var log = EventLog()
    let fast = log.subscribe(limit: 1_000)
    let slow = log.subscribe(limit: 5)
    var batch: [EventRecord] = []
    var payloads: [RunEvent.Kind] = []
    for number in 0..<20 { _ = log.append(Self.record(number)) }
    _ = log.take(for: fast, into: &batch, payloads: &payloads)
    #expect(batch.count == 20)
    #expect(log.storage.held == 5)
    batch.removeAll()
    _ = log.take(for: slow, into: &batch, payloads: &payloads)
    #expect(batch.map(\.time) == (15..<20).map { .nanoseconds($0) })
    #expect(log.storage.held == 0)
  }

  @Test func aLiveReaderWithNoLimitGetsEveryEventInOrder() async throws {
    let attempts = AttemptCounter()
    let chart = try Flowchart<Box> {
      Action("Flaky") { _ in if attempts.next() == 1 { throw Glitch.transient } }
        .retry(1)
      Action("Done", isFinal: true)
    }
    let handle = chart.start(with: Box(), isPaused: true)
    let events = handle.events(bufferingNewest: .max)
    handle.resume()
    var kinds: [String] = []
    for await event in events { kinds.append("\(event.kind)") }
    #expect(kinds.count == 8)
    #expect(kinds.last?.hasPrefix("run finished") == true)
  }

  // MARK: - Printing nested subflows in one pass

  /// A chain of `depth` charts, each a subflow running the next, the last one action.
  private static func nested(depth: Int) throws -> Flowchart<Box> {
    var chart = try Flowchart<Box> { Action("Leaf", isFinal: true) }
    for level in 1...depth {
      let inner = chart
      chart = try Flowchart<Box> {
        Subflow("Level \(level)", running: inner, context: .whole)
        Action("After \(level)", isFinal: true)
      }
    }
    return chart
  }

  @Test func nestedSubflowsPrintEachLineOnceAfterTheirPrefixes() throws {
    var text = ""
    try Self.nested(depth: 3).printTree(to: &text, expandingSubflows: true)
    #expect(
      text == """
        Level 3 (F)
        :  Level 2 (F)
        :  :  Level 1 (F)
        :  :  :  Leaf (A) !
        :  :  After 1 (A) !
        :  After 2 (A) !
        After 3 (A) !

        """)
  }

  @Test func aThousandNestedSubflowsPrint() throws {
    let depth = 1_000
    var text = ""
    try Self.nested(depth: depth).printTree(to: &text, expandingSubflows: true)
    let lines = text.split(separator: "\n")
    #expect(lines.count == 2 * depth + 1)
    #expect(lines[depth] == String(repeating: ":  ", count: depth) + "Leaf (A) !")
    #expect(lines.last == "After \(depth) (A) !")
  }

  // MARK: - Prerequisites by name

  @Test func aLastBranchAfterThousandsOfOthersFindsItsPrerequisites() throws {
    let count = 3_000
    let chart = try Flowchart<Box> {
      Dispatch("Fan out") { box, branch in
        box.count += branch.count
      } branches: {
        for number in 0..<count {
          Branch(
            "B\(number)", after: number == count - 1 ? ["B0", "B1500", "B0", "B2998"] : []
          ) {
            Action("Step \(number)", isFinal: true) { $0.count += 1 }
          }
        }
      }
      Action("Joined", isFinal: true)
    }
    #expect(
      chart.treeDescription.contains("|- B2999 (after B0, B1500, B0, B2998): Step 2999 (A) !"))
    // Every branch ran (the last one on what its prerequisites left, merged).
    #expect(try chart.runSynchronously(with: Box()).context.count >= count)
  }

  @Test func anUnknownOrAmbiguousPrerequisiteIsStillNamed() {
    let error = definitionError {
      try Flowchart<Box> {
        Dispatch("Fan out") { _, _ in
        } branches: {
          Branch("Twin") { Action("A", isFinal: true) }
          Branch("Twin") { Action("B", isFinal: true) }
          Branch("Last", after: ["Twin", "Twn"]) { Action("C", isFinal: true) }
        }
        Action("Joined", isFinal: true)
      }
    }
    let messages = error?.problems.filter { $0.kind == .unknownPrerequisite }.map(\.message) ?? []
    #expect(messages.count == 2)
    #expect(messages.contains { $0.contains("which 2 of its branches are named") })
    #expect(messages.contains { $0.contains("(did you mean 'Twin'?)") })
  }
}
