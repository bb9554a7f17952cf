import Flowchart
import Testing

/// A clock whose time moves only when the test advances it, so that no test sleeps.
///
/// Hand it to the code under test wherever that code takes `some Clock<Duration>`; a task
/// that sleeps on it stays suspended until the test advances the clock past its deadline.
/// Wait for the sleepers to be registered before advancing, so the test never depends on
/// how tasks are scheduled:
///
/// ```swift
/// let clock = TestClock()
/// // swift-format-ignore
/// let chart = try Flowchart<Order> {
///   Action("Wait for payment") { _ in try await clock.sleep(for: .seconds(30)) }
///   Action("Ship", isFinal: true)
/// }
/// let run = Task { try await chart.run(with: Order()) }
/// try await clock.waitForSleepers(1)   // the action is asleep
/// clock.advance(by: .seconds(30))      // and now it wakes
/// let result = try await run.value
/// ```
///
/// A `TestClock` is a value whose copies share one timeline; it is `Sendable`, and every
/// operation takes one lock, so it is safe from any task or thread. A sleeper woken by
/// ``advance(by:sourceLocation:)`` is resumed before `advance` returns, but runs on when its executor
/// schedules it: await what it does (its task's value, say) rather than assuming it has
/// run. Cancelling a sleeping task wakes it at once with a `CancellationError`.
public struct TestClock: WallClockMapping, Sendable {
  /// A point on a test clock's timeline: how long after the clock's start it is.
  public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
    /// The time since the clock's start.
    public var offset: Swift.Duration

    /// The instant `offset` after the clock's start.
    public init(offset: Swift.Duration) {
      self.offset = offset
    }

    /// The instant `duration` after this one.
    public func advanced(by duration: Swift.Duration) -> Instant {
      Instant(offset: offset + duration)
    }

    /// The time from this instant to `other`.
    public func duration(to other: Instant) -> Swift.Duration {
      other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

    /// `start + ` the offset, as in `start + 1.5 seconds`.
    public var description: String { "start + \(offset)" }
  }

  /// The shared timeline.
  private let storage = Storage()

  /// The wall-clock time of the clock's start.
  public let wallClockStart: WallClockTime

  /// A clock at its start, with no sleepers, whose start is the wall-clock time
  /// `wallClockStart` (by default 2026-01-01T00:00:00Z, so that a test's deadlines are the
  /// same on every run).
  public init(wallClockStart: WallClockTime = WallClockTime(secondsSince1970: 1_767_225_600)) {
    self.wallClockStart = wallClockStart
  }

  /// The wall-clock time at ``now``: ``wallClockStart`` advanced by everything the test
  /// advanced. It moves only with the clock, so a deadline a durable run carries as wall-clock
  /// time comes back on the same test clock's timeline.
  public var wallClockNow: WallClockTime {
    wallClockStart.advanced(by: now.offset)
  }

  /// The instant whose wall-clock time is `time`: as far after the clock's start as `time`
  /// is after ``wallClockStart``, whatever the clock's ``now``, so that a run sleeping until
  /// a wall-clock deadline wakes when the clock reaches it even if the test advanced the
  /// clock while the run was working the deadline out.
  public func instant(at time: WallClockTime) -> Instant {
    Instant(offset: wallClockStart.duration(to: time))
  }

  /// The current instant: the start, advanced by everything the test advanced.
  public var now: Instant {
    Instant(offset: storage.state.withLock { $0.now })
  }

  /// Zero: the clock does not round deadlines.
  public var minimumResolution: Swift.Duration { .zero }

  /// How many tasks are asleep on the clock.
  public var sleeperCount: Int {
    storage.state.withLock { $0.sleepers.count }
  }

  /// The earliest deadline of the tasks asleep on the clock, or `nil` when none sleeps.
  public var nextDeadline: Instant? {
    storage.state.withLock { state in
      state.sleepers.values.map(\.deadline).min().map(Instant.init(offset:))
    }
  }

  /// Suspends until the test advances the clock to `deadline` or past it; returns at once
  /// when the clock is already there.
  ///
  /// - Throws: `CancellationError` when the task is cancelled before or while it sleeps.
  public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
    try await suspend { state, id, continuation in
      if deadline.offset <= state.now { return .due }
      state.sleepers[id] = Sleeper(deadline: deadline.offset, continuation: continuation)
      return .asleep(state.takeSatisfiedWaiters())
    } unregister: { state, id in
      state.sleepers.removeValue(forKey: id)?.continuation
    }
  }

  /// Moves the clock forward by `duration`, waking every task whose deadline it reaches,
  /// earliest deadline first.
  ///
  /// - Parameters:
  ///   - duration: How far to go; zero wakes the tasks whose deadline is now. A negative
  ///     duration records an issue and leaves the clock where it is.
  ///   - sourceLocation: Where an issue points; keep the default, the caller.
  /// - Returns: How many sleeping tasks it woke.
  @discardableResult
  public func advance(
    by duration: Swift.Duration, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> Int {
    guard duration >= .zero else {
      IssueReporting.report(
        "A test clock cannot go back: advance(by: \(duration)) was asked. Advance by zero or more.",
        sourceLocation: sourceLocation)
      return 0
    }
    let due = storage.state.withLock { state -> [Sleeper] in
      state.now += duration
      let now = state.now
      let due = state.sleepers.filter { $0.value.deadline <= now }
        .sorted { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
      for (id, _) in due { state.sleepers.removeValue(forKey: id) }
      return due.map(\.value)
    }
    for sleeper in due { sleeper.continuation.resume() }
    return due.count
  }

  /// Moves the clock forward to `instant`; see ``advance(by:sourceLocation:)``. An instant
  /// before ``now`` records an issue.
  @discardableResult
  public func advance(
    to instant: Instant, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> Int {
    advance(by: now.duration(to: instant), sourceLocation: sourceLocation)
  }

  /// Suspends until at least `count` tasks are asleep on the clock.
  ///
  /// Call it before ``advance(by:sourceLocation:)`` so that the code under test has
  /// reached its sleep whatever the scheduler did meanwhile.
  ///
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  public func waitForSleepers(_ count: Int = 1) async throws {
    try await suspend { state, id, continuation in
      if state.sleepers.count >= count { return .due }
      state.waiters[id] = Waiter(count: count, continuation: continuation)
      return .asleep([])
    } unregister: { state, id in
      state.waiters.removeValue(forKey: id)?.continuation
    }
  }

  /// Suspends the task under a fresh id until someone resumes the continuation that
  /// `register` keeps (under the lock, unless it finds the task due), or the task is
  /// cancelled: then `unregister` gives the continuation back when it was kept, and a
  /// cancellation before `register` ran is noted so that it throws at once.
  private func suspend(
    register: @escaping @Sendable (inout State, Int, Continuation) -> SleepOutcome,
    unregister: @escaping @Sendable (inout State, Int) -> Continuation?
  ) async throws {
    let storage = storage
    let id = storage.state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    // The handler runs at most while the operation runs: forget the cancellation it may
    // have noted once the operation has returned.
    defer { storage.state.withLock { _ = $0.cancelled.remove(id) } }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: Continuation) in
        let outcome = storage.state.withLock { state -> SleepOutcome in
          if state.cancelled.remove(id) != nil { return .cancelled }
          return register(&state, id, continuation)
        }
        switch outcome {
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .due: continuation.resume()
        case .asleep(let waiters): for waiter in waiters { waiter.resume() }
        }
      }
    } onCancel: {
      let continuation = storage.state.withLock { state -> Continuation? in
        if let continuation = unregister(&state, id) { return continuation }
        state.cancelled.insert(id)
        return nil
      }
      continuation?.resume(throwing: CancellationError())
    }
  }
}

extension TestClock {
  typealias Continuation = CheckedContinuation<Void, any Error>

  /// A task asleep until `deadline`.
  struct Sleeper {
    var deadline: Swift.Duration
    var continuation: Continuation
  }

  /// A task waiting for `count` sleepers.
  struct Waiter {
    var count: Int
    var continuation: Continuation
  }

  /// What a sleep or a wait found when it went to register.
  enum SleepOutcome {
    /// Its task was cancelled first: it throws at once.
    case cancelled
    /// It has nothing to wait for: it returns at once.
    case due
    /// It is registered; these waiters' counts are now reached.
    case asleep([Continuation])
  }

  /// Everything about a timeline, under one lock.
  struct State {
    var now: Swift.Duration = .zero
    var nextID = 0
    var sleepers: [Int: Sleeper] = [:]
    var waiters: [Int: Waiter] = [:]
    /// Sleeps and waits cancelled before they registered.
    var cancelled: Set<Int> = []

    /// Removes and returns the waiters whose count of sleepers is reached.
    mutating func takeSatisfiedWaiters() -> [Continuation] {
      let count = sleepers.count
      let satisfied = waiters.filter { $0.value.count <= count }
      for id in satisfied.keys { waiters.removeValue(forKey: id) }
      return satisfied.values.map(\.continuation)
    }
  }

  /// The timeline that copies of a clock share.
  final class Storage: Sendable {
    let state = Lock(State())
  }
}
