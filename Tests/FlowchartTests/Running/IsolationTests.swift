import Dispatch
import Flowchart
import Testing

/// Where each state's code ran: whether isolated to a ``QueueActor``, whose jobs, and no other
/// code, run on its executor's queue.
private struct Trace: Sendable {
  var onActor: [String: Bool] = [:]

  mutating func record(_ name: String) {
    onActor[name] = DispatchQueue.getSpecific(key: queueExecutorKey) == true
  }
}

/// What a ``QueueExecutor``'s queue carries, so that code can tell it runs there.
private let queueExecutorKey = DispatchSpecificKey<Bool>()

/// A serial executor that runs its jobs on a dispatch queue of its own, marked with
/// ``queueExecutorKey``.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
private final class QueueExecutor: SerialExecutor {
  private let queue = DispatchQueue(label: "IsolationTests.QueueExecutor")

  init() {
    queue.setSpecific(key: queueExecutorKey, value: true)
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }
}

/// An actor isolated to a ``QueueExecutor``, which starts runs.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
private actor QueueActor {
  private let executor = QueueExecutor()

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  func run(_ chart: Flowchart<Trace>, isolation: Bool = true) async throws -> Trace {
    if isolation {
      try await chart.run(with: Trace()).context
    } else {
      try await chart.run(with: Trace(), isolation: nil).context
    }
  }

  func runNonisolated(_ chart: Flowchart<Trace>) async throws -> Trace {
    try await runFromNowhere(chart)
  }

  func runSynchronously(_ chart: Flowchart<Trace>) throws -> Trace {
    try chart.runSynchronously(with: Trace()).context
  }

  func start(_ chart: Flowchart<Trace>) -> RunHandle<Trace> {
    chart.start(with: Trace())
  }

  func retry(_ handle: RunHandle<Trace>) throws -> RunHandle<Trace> {
    try handle.retry()
  }
}

/// Counts calls, so that a state fails only the first time.
private final class Calls: Sendable {
  private let count = Lock(0)
  /// Counts a call; returns its number, from 1.
  func next() -> Int {
    count.withLock {
      $0 += 1
      return $0
    }
  }
}

/// Runs `chart` from a function that is not isolated to an actor.
private nonisolated func runFromNowhere(_ chart: Flowchart<Trace>) async throws -> Trace {
  try await chart.run(with: Trace()).context
}

/// A synchronous action, an asynchronous one, a synchronous condition and a synchronous
/// final action.
private func mixedChart() throws -> Flowchart<Trace> {
  try Flowchart<Trace> {
    Action("Sync before") { $0.record("Sync before") }
    Action("Async") { trace in
      await Task.yield()
      trace.record("Async")
    }
    Condition("Sync condition") {
      $0.record("Sync condition")
      return true
    } yes: {
      Action("Sync after", isFinal: true) { $0.record("Sync after") }
    } no: {
      Action("Never", isFinal: true) { $0.record("Never") }
    }
  }
}

// The tests that start runs from a `QueueActor` need its executor's `ExecutorJob` (macOS 14).
struct IsolationTests {
  /// What ``mixedChart()`` records when its synchronous states run on the caller's actor.
  private static let mixedOnActor = [
    "Sync before": true, "Async": false, "Sync condition": true, "Sync after": true,
  ]

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @Test func synchronousStatesRunOnTheCallersActorAndAsynchronousOnesOffIt() async throws {
    let trace = try await QueueActor().run(mixedChart())
    #expect(trace.onActor == Self.mixedOnActor)
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @Test func passingNoIsolationRunsNoStateOnTheCallersActor() async throws {
    let trace = try await QueueActor().run(mixedChart(), isolation: false)
    #expect(trace.onActor.count == 4)
    #expect(trace.onActor.values.allSatisfy { !$0 })
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @Test func aRunFromANonisolatedFunctionRunsNoStateOnTheActorThatCalledIt() async throws {
    let trace = try await QueueActor().runNonisolated(mixedChart())
    #expect(trace.onActor.count == 4)
    #expect(trace.onActor.values.allSatisfy { !$0 })
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @Test func aSynchronousRunRunsEveryStateOnTheCallersActor() async throws {
    let chart = try Flowchart<Trace> {
      Action("First") { $0.record("First") }
      Condition("Second", isFinal: true) {
        $0.record("Second")
        return false
      }
    }
    let trace = try await QueueActor().runSynchronously(chart)
    #expect(trace.onActor == ["First": true, "Second": true])
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @Test func dispatchBranchesAndTheMergeRunOffTheCallersActor() async throws {
    let chart = try Flowchart<Trace> {
      Dispatch(
        "Fan out",
        merge: { trace, branch in
          trace.onActor.merge(branch.onActor) { first, _ in first }
          trace.record("Merge")
        }
      ) {
        Branch { Action("Branch 1", isFinal: true) { $0.record("Branch 1") } }
        Branch { Action("Branch 2", isFinal: true) { $0.record("Branch 2") } }
      }
      Action("After", isFinal: true) { $0.record("After") }
    }
    let trace = try await QueueActor().run(chart)
    #expect(
      trace.onActor == ["Branch 1": false, "Branch 2": false, "Merge": false, "After": true])
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @Test func aSubflowOfASynchronousChartRunsWhereItsStateRuns() async throws {
    let inner = try Flowchart<Trace> {
      Action("Inner", isFinal: true) { $0.record("Inner") }
    }
    let outer = try Flowchart<Trace> {
      Action("Async") { trace in
        await Task.yield()
        trace.record("Async")
      }
      Subflow("Nested", running: inner, context: .whole)
      Action("After", isFinal: true) { $0.record("After") }
    }
    let trace = try await QueueActor().run(outer)
    #expect(trace.onActor == ["Async": false, "Inner": true, "After": true])
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @Test func aLiveRunStartedOnAnActorRunsItsSynchronousStatesThere() async throws {
    let handle = try await QueueActor().start(mixedChart())
    let trace = try await handle.result.context
    #expect(trace.onActor == Self.mixedOnActor)
  }

  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
  @Test func aRunRetriedOnAnActorRunsItsSynchronousStatesThere() async throws {
    struct Once: Error {}
    let calls = Calls()
    let chart = try Flowchart<Trace> {
      Action("Before") { $0.record("Before") }
      Action("Flaky") { trace in
        trace.record("Flaky")
        if calls.next() == 1 { throw Once() }
      }
      Action("After", isFinal: true) { $0.record("After") }
    }
    // Started off any actor, retried on one: only the retried run's states run there.
    let handle = chart.start(with: Trace())
    _ = await #expect(throws: RunError.self) { try await handle.result }
    let retried = try await QueueActor().retry(handle)
    let trace = try await retried.result.context
    #expect(trace.onActor == ["Before": false, "Flaky": true, "After": true])
  }

  @Test func aLiveRunStartedOffAnyActorRunsNoStateOnOne() async throws {
    let handle = try mixedChart().start(with: Trace())
    let trace = try await handle.result.context
    #expect(trace.onActor.count == 4)
    #expect(trace.onActor.values.allSatisfy { !$0 })
  }

  @MainActor
  @Test func aRunFromTheMainActorRunsItsSynchronousStatesOnTheMainActor() async throws {
    let chart = try Flowchart<Trace> {
      Action("On the main actor") { trace in
        // Stops the tests if the state does not run on the main actor.
        MainActor.preconditionIsolated("a synchronous state of a run started on the main actor")
        trace.record("On the main actor")
      }
      Action("Async", isFinal: true) { $0.record("Async") }
    }
    let trace = try await chart.run(with: Trace()).context
    #expect(trace.onActor == ["On the main actor": false, "Async": false])
  }
}
