import Flowchart
import Testing

/// What the faster subflows and maps keep: a synchronous subflow's inner run is part of one
/// outer state, whose boundaries read the cancellation; a map's elements run in at most
/// `maxConcurrency` worker tasks that share its tolerance, and a cancelled map ends the run
/// cancelled however many failures it tolerates.
@Suite(.timeLimit(.minutes(5)))
struct CompositionSpeedTests {
  struct Odd: Error {}

  /// Doubles even numbers; fails on odd ones.
  static func doubler() throws -> Flowchart<Int> {
    try Flowchart<Int> {
      Action("Double", isFinal: true) { value in
        guard value.isMultiple(of: 2) else { throw Odd() }
        value *= 2
      }
    }
  }

  static func doubleAll(tolerating failures: Int, limit: Int) throws -> Flowchart<[Int]> {
    let doubler = try doubler()
    return try Flowchart<[Int]> {
      Map(
        "Double all", isFinal: true, over: { $0 }, running: doubler,
        maxConcurrency: limit, toleratedFailures: failures
      ) { values, results in
        values = results.outputs + results.failures.map { -$0.index }
      }
    }
  }

  // MARK: - Maps

  @Test(arguments: [1, 3, 16])
  func workersShareTheToleranceAndKeepInputOrder(maxConcurrency: Int) async throws {
    let chart = try Self.doubleAll(tolerating: 10, limit: maxConcurrency)
    let result = try await chart.run(with: Array(0..<20))
    let evens: [Int] = stride(from: 0, to: 20, by: 2).map { $0 * 2 }
    let odds: [Int] = stride(from: 1, to: 20, by: 2).map { 0 - $0 }
    #expect(result.context == evens + odds)
  }

  @Test(arguments: [1, 3, 16])
  func oneFailureBeyondTheToleranceStopsTheMap(maxConcurrency: Int) async throws {
    let chart = try Self.doubleAll(tolerating: 9, limit: maxConcurrency)
    // 21 elements hold ten odd ones, one more than tolerated: the map fails, naming one.
    let error = try await #require(throws: RunError.self) {
      try await chart.run(with: Array(0..<21))
    }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Double all")
    let inner = try #require(error.underlyingError as? RunError)
    #expect(inner.stateName == "Double")
    #expect(inner.underlyingError is Odd)
    #expect(error.description.contains("the run for element "))
  }

  @Test func cancellingAMapThatToleratesFailuresEndsTheRunCancelled() async throws {
    let gates = Gates()
    let started = Counter()
    let inner = try Flowchart<Int> {
      Action("Wait", isFinal: true) { value in
        started.increment()
        await gates.park(value)
        try await Task.sleep(for: .seconds(600))
      }
    }
    let chart = try Flowchart<[Int]> {
      Map(
        "Wait for all", isFinal: true, over: { $0 }, running: inner, maxConcurrency: 2,
        toleratedFailures: 10
      ) { _, _ in }
    }
    let run = Task { try await chart.run(with: Array(0..<6)) }
    for index in await gates.parked(count: 2) { await gates.open(index) }
    run.cancel()
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Wait for all")
    // The two under way failed, tolerated; the other four never started.
    #expect(started.value == 2)
  }

  @Test func aCancelledSynchronousMapStopsWithinItsCheckInterval() async throws {
    let ran = Counter()
    let inner = try Flowchart<Int> {
      Action("Count", isFinal: true) { _ in
        ran.increment()
        withUnsafeCurrentTask { $0?.cancel() }
      }
    }
    let chart = try Flowchart<[Int]> {
      Map("Count all", over: { $0 }, running: inner, maxConcurrency: 1) { _, _ in }
      Action("After", isFinal: true)
    }
    #expect(chart.isSynchronous)
    let error = try await #require(throws: RunError.self) {
      try await Task { try chart.runSynchronously(with: Array(repeating: 0, count: 10_000)) }
        .value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Count all")
    #expect(ran.value == 1_024)
  }

  // MARK: - Subflows

  @Test func anInnerRunCancelledInItsLastStateStopsTheOuterRunAtItsNextBoundary()
    async throws
  {
    let inner = try Flowchart<Int> {
      Action("Cancel the task", isFinal: true) { _ in withUnsafeCurrentTask { $0?.cancel() } }
    }
    let outer = try Flowchart<Int> {
      Subflow("Inner", running: inner, context: .whole)
      Action("After", isFinal: true)
    }
    #expect(outer.isSynchronous)
    let error = try await #require(throws: RunError.self) {
      try await Task { try await outer.run(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "After")
    #expect(error.pathNames == ["Inner"])
  }

  @Test func aSynchronousRunCyclingThroughASubflowStopsOnceCancelled() async throws {
    let visits = Counter()
    let inner = try Flowchart<Int> {
      Action("Cancel the task", isFinal: true) { _ in
        visits.increment()
        withUnsafeCurrentTask { $0?.cancel() }
      }
    }
    // swift-format-ignore
    let outer = try Flowchart<Int> {
      Subflow("Inner", running: inner, context: .whole)
      Condition("Again?") { _ in true } yes: { GoTo("Inner") } no: { Action("Done", isFinal: true) }
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try outer.runSynchronously(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    // The outer run asks its task at its path's checkpoints: within 4,096 of its states.
    #expect(visits.value <= 2_048)
  }
}

/// A limited dispatch whose branches wait for none runs them in worker tasks that apply the
/// join policy themselves: the same outcomes as one task per branch.
@Suite(.timeLimit(.minutes(5)))
struct LimitedDispatchCompositionTests {
  struct Broken: Error {}

  /// Each branch's status, in declaration order, as the report gives it.
  final class Statuses: Sendable {
    private let storage = Lock<[String]>([])
    func record(_ report: DispatchReport) {
      storage.withLock { $0 = report.branches.map { "\($0.status)" } }
    }
    var values: [String] { storage.withLock { $0 } }
  }

  @Test func theFirstSuccessEndsALimitedDispatchAndTheRestNeverStart() async throws {
    let statuses = Statuses()
    let started = Counter()
    let chart = try Flowchart<Int> {
      Dispatch("Mirrors", isFinal: true, maxConcurrency: 1, join: .firstSuccess) {
        Branch { Action("Fails", isFinal: true) { _ in throw Broken() } }
        Branch { Action("Wins", isFinal: true) { _ in started.increment() } }
        for number in 0..<3 {
          Branch { Action("Late \(number)", isFinal: true) { _ in started.increment() } }
        }
      } report: { _, report in
        statuses.record(report)
      }
    }
    _ = try await chart.run(with: 0)
    #expect(statuses.values == ["failed", "succeeded", "cancelled", "cancelled", "cancelled"])
    #expect(started.value == 1)
  }

  @Test func theFirstSuccessCancelsABranchThatAwaits() async throws {
    let statuses = Statuses()
    let chart = try Flowchart<Int> {
      Dispatch("Mirrors", isFinal: true, maxConcurrency: 2, join: .firstSuccess) {
        Branch {
          Action("Sleeps", isFinal: true) { _ in try await Task.sleep(for: .seconds(600)) }
        }
        Branch { Action("Wins", isFinal: true) }
        Branch { Action("Late", isFinal: true) }
      } report: { _, report in
        statuses.record(report)
      }
    }
    _ = try await chart.run(with: 0)
    #expect(statuses.values == ["cancelled", "succeeded", "cancelled"])
  }

  @Test(arguments: [1, 2, 4])
  func oneFailureBeyondTheToleranceFailsALimitedDispatch(limit: Int) async throws {
    let chart = try Flowchart<Int> {
      Dispatch("Fan out", isFinal: true, maxConcurrency: limit, join: .toleratingFailures(2)) {
        for number in 0..<6 {
          Branch {
            Action("Work \(number)", isFinal: true) { _ in
              if number.isMultiple(of: 2) { throw Broken() }
            }
          }
        }
      }
    }
    let error = try await #require(throws: RunError.self) { try await chart.run(with: 0) }
    #expect(error.kind == .thrown)
    #expect(error.underlyingError is Broken)
  }

  @Test(arguments: [1, 2, 4])
  func toleratedFailuresLeaveTheOthersMerged(limit: Int) async throws {
    let statuses = Statuses()
    let chart = try Flowchart<Int> {
      Dispatch(
        "Fan out", isFinal: true, maxConcurrency: limit, join: .toleratingFailures(3),
        merge: { total, branch in total += branch }
      ) {
        for number in 0..<6 {
          Branch {
            Action("Work \(number)", isFinal: true) { value in
              if number.isMultiple(of: 2) { throw Broken() }
              value = number
            }
          }
        }
      } report: { _, report in
        statuses.record(report)
      }
    }
    #expect(try await chart.run(with: 0).context == 1 + 3 + 5)
    #expect(
      statuses.values == ["failed", "succeeded", "failed", "succeeded", "failed", "succeeded"])
  }

  @Test func cancellingALimitedDispatchEndsTheRunCancelled() async throws {
    let gates = Gates()
    let started = Counter()
    let chart = try Flowchart<Int> {
      Dispatch("Limited", isFinal: true, maxConcurrency: 2, join: .toleratingFailures(10)) {
        for number in 0..<6 {
          Branch {
            Action("Wait \(number)", isFinal: true) { _ in
              started.increment()
              await gates.park(number)
              try await Task.sleep(for: .seconds(600))
            }
          }
        }
      }
    }
    let run = Task { try await chart.run(with: 0) }
    for index in await gates.parked(count: 2) { await gates.open(index) }
    run.cancel()
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(started.value == 2)
  }
}
