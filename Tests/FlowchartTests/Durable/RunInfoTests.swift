import Testing

@testable import Flowchart

@Suite(.timeLimit(.minutes(5)))
struct RunInfoTests {
  @Test func aLiveRunsStateReadsTheRunsIdAndItsAttempt() async throws {
    let seen = Shared<[RunInfo?]>([])
    let chart = try Flowchart<Ledger> {
      Action("Flaky", isFinal: true) { (_: inout Ledger) async throws in
        seen.update { $0 += [RunInfo.current] }
        if seen.value.count < 3 { throw Declined() }
      }
      .retry(2)
    }
    let id = RunID("run-7")!
    let handle = chart.start(with: Ledger(), id: id, chart: "flaky")
    _ = try await handle.result
    #expect(seen.value == [1, 2, 3].map { RunInfo(runID: id, attempt: $0) })
  }

  @Test func aRunWithoutAHandleHasNoRunInfo() async throws {
    let seen = Shared<RunInfo?>(RunInfo(runID: RunID("x")!, attempt: 9))
    let chart = try Flowchart<Ledger> {
      Action("Look", isFinal: true) { (_: inout Ledger) async in seen.set(RunInfo.current) }
    }
    _ = try await chart.run(with: Ledger())
    #expect(seen.value == nil)
  }

  @Test func aResumedRunKeepsItsId() async throws {
    let seen = Shared<RunID?>(nil)
    let chart = try Flowchart<Ledger> {
      Action("First") { _ in }
      Action("Look", isFinal: true) { (_: inout Ledger) async in
        seen.set(RunInfo.current?.runID)
      }
    }
    let handle = chart.start(with: Ledger(), isPaused: true)
    let snapshot = try await handle.snapshot()
    handle.cancel()
    _ = try await chart.resume(from: try roundTrip(snapshot))
    #expect(seen.value == snapshot.id)
    #expect(seen.value == handle.runID)
  }
}
