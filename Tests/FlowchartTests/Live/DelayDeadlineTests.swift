import FlowchartTesting
import Testing

@testable import Flowchart

// A delay sleeps until its absolute deadline on the run's clock (`RunClock.sleep(until:)`,
// `WallClockMapping.instant(at:)`): a clock that moves between the moment a flow works its
// deadline out and the moment it sleeps cannot leave it asleep. The clock below moves
// exactly there, as a test advancing its `TestClock` for another flow would: no timing, no
// sleeps.

/// A `TestClock` that is advanced by `step` just as the `movesAt`-th read of its `now` is
/// made (the read a sleep makes as it begins), then tells the test it moved.
private struct SteppingClock: WallClockMapping {
  typealias Instant = TestClock.Instant
  typealias Duration = Swift.Duration

  final class Reads: Sendable {
    let count = Lock(0)
  }

  let base: TestClock
  let step: Duration
  let movesAt: Int
  let reads = Reads()
  let moved: AsyncStream<Void>.Continuation

  var now: Instant {
    let read = reads.count.withLock { count in
      count += 1
      return count
    }
    if read == movesAt {
      base.advance(by: step)
      moved.yield()
    }
    return base.now
  }

  var minimumResolution: Duration { .zero }

  var wallClockNow: WallClockTime { base.wallClockNow }

  func instant(at time: WallClockTime) -> Instant { base.instant(at: time) }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try await base.sleep(until: deadline, tolerance: tolerance)
  }
}

private struct Notes: Sendable {
  var notes: [String] = []
}

@Suite(.timeLimit(.minutes(10)))
struct DelayDeadlineTests {
  @Test func twoDelaysInTwoBranchesWakeAtTheirDeadlineWhenTheClockMovesBeforeTheSecondSleeps()
    async throws
  {
    // swift-format-ignore
    let chart = try Flowchart<Notes> {
      Dispatch("Split", isFinal: true, merge: { context, branch, original in
        context.notes += branch.notes.dropFirst(original.notes.count)
      }) {
        Branch { Delay("First", for: .seconds(60), isFinal: true) }
        Branch { Delay("Second", for: .seconds(60), isFinal: true) }
      }
    }
    let base = TestClock()
    let (moved, mover) = AsyncStream<Void>.makeStream()
    // Each delay reads `now` once as it goes to sleep: the second read is the second delay's,
    // after it fixed its deadline (60 s from the start) and before it sleeps. The clock then
    // moves to that deadline, as a test moving it for the first delay would.
    let clock = SteppingClock(base: base, step: .seconds(60), movesAt: 2, moved: mover)
    let run = Task { try await chart.run(with: Notes(), clock: clock) }
    var movedIterator = moved.makeAsyncIterator()
    _ = await movedIterator.next()
    // Both deadlines are now: no delay may still sleep. One left asleep (until 120 s, its
    // deadline worked out again from the moved clock) is reported and woken, so that the
    // test fails rather than hangs.
    let result = try await withThrowingTaskGroup(of: RunResult<Notes>?.self) { group in
      group.addTask { try await run.value }
      group.addTask {
        // Cancelled once the run has ended, as it is when the fix holds.
        guard (try? await base.waitForSleepers(1)) != nil else { return nil }
        Issue.record(
          "a delay sleeps past its deadline, until \(String(describing: base.nextDeadline))")
        base.advance(by: .seconds(60))
        return nil
      }
      var result: RunResult<Notes>? = nil
      while let next = try await group.next() {
        if let next {
          result = next
          group.cancelAll()
        }
      }
      return result
    }
    #expect(result?.pathNames == ["Split", "First", "Second"])
    #expect(base.now == TestClock.Instant(offset: .seconds(60)))
  }

  @Test func aTestClockMapsAWallClockTimeToItsOwnInstantWhateverItsNow() async throws {
    let clock = TestClock()
    let deadline = clock.wallClockStart.advanced(by: .seconds(90))
    #expect(clock.instant(at: deadline) == TestClock.Instant(offset: .seconds(90)))
    clock.advance(by: .seconds(120))
    #expect(clock.instant(at: deadline) == TestClock.Instant(offset: .seconds(90)))
    // A sleep that begins after the clock passed its deadline returns at once.
    try await clock.sleep(until: clock.instant(at: deadline))
    #expect(clock.sleeperCount == 0)
  }
}
