import Foundation
import Testing

@testable import Flowchart

/// A run started or resumed paused (`isPaused: true`) makes no task until it is resumed,
/// cancelled or abandoned; until then its snapshot, `send`, `result` and events work as before.
@Suite(.timeLimit(.minutes(5)))
struct HeldStartTests {
  /// The observer's events, as text, in the order reported.
  private final class Recorder: Sendable {
    private let lines = Lock<[String]>([])
    var observer: RunObserver {
      RunObserver(didReport: { event in self.lines.withLock { $0.append("\(event.kind)") } })
    }
    var events: [String] { lines.withLock { $0 } }
  }

  /// Whether the run made its first task yet, and whether it keeps one to make.
  private static func tasks<Context>(of handle: RunHandle<Context>) -> (made: Bool, kept: Bool) {
    handle.run.state.withLock { ($0.machine.hasTask, $0.heldStart != nil) }
  }

  /// A snapshot of a run of the snapshot tests' chart waiting at "Answer".
  private static func waitingSnapshot(_ chart: Flowchart<Ledger>) async throws -> RunSnapshot<
    Ledger
  > {
    let handle = chart.start(with: Ledger(total: 1), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    await waitForInput(handle, events: &events)
    defer { handle.cancel() }
    return try roundTrip(try await handle.snapshot())
  }

  @Test func aHeldRestoreMakesNoTaskUntilResumedAndThenRunsToItsEnd() async throws {
    let chart = try SnapshotTests.chart()
    let stored = try await Self.waitingSnapshot(chart)
    let recorder = Recorder()
    let handle = try chart.start(resuming: stored, isPaused: true, observer: recorder.observer)
    #expect(Self.tasks(of: handle) == (made: false, kept: true))
    #expect(handle.isPaused)
    #expect(!handle.hasEnded)

    let held = try await handle.snapshot()
    #expect(held.status == .paused)
    #expect(held.position == "Answer")
    #expect(held.pathKeys == Array(stored.pathKeys.dropLast()))
    #expect(held.context == stored.context)
    #expect(try handle.send(5, to: "Answer"))
    #expect(try handle.send(6, to: "Answer") == false)
    #expect(Self.tasks(of: handle) == (made: false, kept: true))
    #expect(recorder.events.isEmpty)

    handle.resume()
    #expect(Self.tasks(of: handle).kept == false)
    let result = try await handle.result
    #expect(result.pathNames == ["Prepare", "Answer", "Big?", "Celebrate"])
    #expect(result.context == Ledger(total: 6, notes: ["prepared", "big"]))
    #expect(recorder.events.first == "run started")
    #expect(recorder.events.last?.hasPrefix("run finished") == true)
  }

  @Test func cancellingAHeldRestoreThatNeverStartedEndsItCancelled() async throws {
    let chart = try SnapshotTests.chart()
    let stored = try await Self.waitingSnapshot(chart)
    let recorder = Recorder()
    let handle = try chart.start(resuming: stored, isPaused: true, observer: recorder.observer)
    let stream = handle.events()
    #expect(Self.tasks(of: handle) == (made: false, kept: true))
    handle.cancel()
    let error = await #expect(throws: RunError.self) { try await handle.result }
    #expect(error?.kind == .cancelled)
    #expect(error?.stateName == "Answer")
    #expect(handle.hasEnded)
    #expect(!handle.isPaused)
    var streamed: [String] = []
    for await event in stream { streamed.append("\(event.kind)") }
    #expect(recorder.events == streamed)
    #expect(recorder.events == ["run started", "failed (cancelled)", "run failed (cancelled)"])
    #expect(throws: InputError.self) { try handle.send(1, to: "Answer") }
    handle.resume()
    #expect(handle.hasEnded)
  }

  @Test func cancellingAHeldStartThatNeverStartedEndsItAsBefore() async throws {
    let chart = try SnapshotTests.chart()
    let recorder = Recorder()
    let handle = chart.start(with: Ledger(), isPaused: true, observer: recorder.observer)
    #expect(Self.tasks(of: handle) == (made: false, kept: true))
    handle.cancel()
    let error = await #expect(throws: RunError.self) { try await handle.result }
    #expect(error?.kind == .cancelled)
    #expect(error?.stateName == "Prepare")
    #expect(recorder.events == ["run started", "failed (cancelled)", "run failed (cancelled)"])
  }

  @Test func aHeldRunWhoseHandlesAreAllGoneIsCancelled() async throws {
    let chart = try SnapshotTests.chart()
    let stored = try await Self.waitingSnapshot(chart)
    var handle: RunHandle<Ledger>? = try chart.start(resuming: stored, isPaused: true)
    let run = try #require(handle?.run)
    #expect(run.state.withLock { $0.heldStart != nil })
    handle = nil
    let result = await run.result()
    guard case .failure(let error) = result else {
      Issue.record("expected the abandoned held run to be cancelled, got \(result)")
      return
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Answer")
  }

  @Test func aHeldStartResumedMakesItsTaskOnceAndPausesAgain() async throws {
    let chart = try SnapshotTests.chart()
    let handle = chart.start(with: Ledger(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    handle.pause()
    handle.resume()
    await waitForInput(handle, events: &events)
    #expect(Self.tasks(of: handle).kept == false)
    try handle.send(1, to: "Answer")
    let result = try await handle.result
    #expect(result.pathNames == ["Prepare", "Answer", "Big?", "Shrug"])
  }
}
