import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Snapshots of a run standing inside a map that already tolerated a failure of an element:
// the failure crosses the snapshot as plain data (its kind, state, path, message, and the
// thrown error's type name and description), and the resumed map's `collect` receives it as
// a `RunError` whose underlying error is a `RestoredError`. No test sleeps: the elements
// wait at delays on `TestClock`s.

private let hour = Duration.seconds(3_600)

/// What an element's "Charge" throws for an odd total.
struct DeclinedCharge: Error, CustomStringConvertible {
  let total: Int
  var description: String { "card declined for \(total)" }
}

/// The failures each run's `collect` received, in the order the runs collected.
final class CollectedFailures: Sendable {
  private let failures = Lock<[[MapResults<Ledger>.Failure]]>([])

  func add(_ collected: [MapResults<Ledger>.Failure]) {
    failures.withLock { $0.append(collected) }
  }

  var all: [[MapResults<Ledger>.Failure]] { failures.withLock { $0 } }
}

/// A basket whose map "Charge each" charges its items one at a time, tolerating
/// `tolerated` failures: an element of an odd total fails at "Charge"; the others wait an
/// hour at "Cool off", then settle.
func tolerantMapChart(tolerated: Int = 1, collected: CollectedFailures? = nil) throws
  -> Flowchart<Basket>
{
  let inner = try Flowchart<Ledger> {
    Action("Charge") { (ledger: inout Ledger) async throws in
      if ledger.total % 2 == 1 { throw DeclinedCharge(total: ledger.total) }
      ledger.total &+= 1
    }
    Delay("Cool off", for: hour)
    Action("Settle", isFinal: true) { (ledger: inout Ledger) async in
      ledger.notes.append("settled")
    }
  }
  return try Flowchart<Basket> {
    Action("Open") { $0.notes.append("open") }
    Map(
      "Charge each", over: { $0.items }, running: inner, maxConcurrency: 1,
      toleratedFailures: tolerated
    ) { basket, results in
      collected?.add(results.failures)
      basket.totals = results.outputs.map(\.total)
      basket.notes += results.outputs.flatMap(\.notes)
      basket.notes += results.failures.map { "\($0.index) failed: \($0.error.underlyingError!)" }
      basket.notes.append("collected \(results.indices) of \(results.elementCount)")
    }
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

/// Element 0 fails (tolerated), element 1 waits at its delay, element 2 has not started.
let tolerantMapItems = Basket(items: [Ledger(total: 11), Ledger(total: 20), Ledger(total: 30)])

/// The same, but element 2 fails too: one failure more than the map tolerates.
private let failingItems = Basket(
  items: [Ledger(total: 11), Ledger(total: 20), Ledger(total: 31)])

/// Runs `chart` over `basket` to its end on a `TestClock`, letting each delay go.
private func uninterrupted(_ chart: Flowchart<Basket>, over basket: Basket, delays: Int)
  async -> Result<RunResult<Basket>, RunError>
{
  let clock = TestClock()
  let handle = chart.start(with: basket, clock: clock)
  for _ in 0..<delays {
    try? await clock.waitForSleepers(1)
    clock.advance(by: hour)
  }
  do {
    return .success(try await handle.result)
  } catch {
    return .failure(error)
  }
}

/// A snapshot, through JSON, of `chart` over `basket` standing at element 1's delay.
private func snapshotAtTheDelay(_ chart: Flowchart<Basket>, over basket: Basket, id: String)
  async throws -> RunSnapshot<Basket>
{
  let clock = TestClock()
  let handle = chart.start(with: basket, id: RunID(id)!, chart: "tolerant", clock: clock)
  try await clock.waitForSleepers(1)
  defer { handle.cancel() }
  let snapshot = try await handle.snapshot()
  return try JSONDecoder().decode(
    RunSnapshot<Basket>.self, from: JSONEncoder().encode(snapshot))
}

@Suite(.timeLimit(.minutes(5)))
struct ToleratedMapFailureSnapshotTests {
  @Test func aMapThatToleratedAFailureIsCapturedAndCollectsItAsARestoredError() async throws {
    let plainFailures = CollectedFailures()
    let expected = try await uninterrupted(
      tolerantMapChart(collected: plainFailures), over: tolerantMapItems, delays: 2
    ).get()
    let snapshot = try await snapshotAtTheDelay(
      tolerantMapChart(), over: tolerantMapItems, id: "tolerant-1")
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Charge each")
    let map = try #require(snapshot.flows[0].map)
    #expect(map.done.isEmpty)
    #expect(map.running.map(\.index) == [1])
    let failed = try #require(map.failed.first)
    #expect(map.failed.count == 1)
    #expect(failed.index == 0)
    #expect(failed.kind == .thrown)
    #expect(failed.state == "Charge")
    #expect(failed.path == ["Charge"])
    #expect(
      failed.underlyingError
        == RestoredError(
          typeName: String(reflecting: DeclinedCharge.self), description: "card declined for 11"))

    let collected = CollectedFailures()
    let clock = TestClock(wallClockStart: TestClock().wallClockStart.advanced(by: hour))
    let resumed = try tolerantMapChart(collected: collected).start(
      resuming: snapshot, chart: "tolerant", clock: clock)
    try await clock.waitForSleepers(1)
    clock.advance(by: hour)
    let result = try await resumed.result
    #expect(result.context == expected.context)
    #expect(result.pathNames == expected.pathNames)
    #expect(
      result.context.notes == [
        "open", "settled", "settled", "0 failed: card declined for 11",
        "collected [1, 2] of 3", "shipped",
      ])
    let original = try #require(plainFailures.all.first?.first)
    let restored = try #require(collected.all.first?.first)
    #expect(collected.all.map(\.count) == [1])
    #expect(restored.index == original.index)
    #expect(restored.error.kind == original.error.kind)
    #expect(restored.error.state == original.error.state)
    #expect(restored.error.stateName == original.error.stateName)
    #expect(restored.error.path == original.error.path)
    #expect(restored.error.pathNames == original.error.pathNames)
    #expect(restored.error.description == original.error.description)
    #expect(original.error.underlyingError is DeclinedCharge)
    let underlying = try #require(restored.error.underlyingError as? RestoredError)
    #expect(underlying.typeName == String(reflecting: DeclinedCharge.self))
    #expect(underlying.description == "card declined for 11")
    #expect(restored.error.unmatchedKey == nil)
  }

  @Test func aFailureAfterResumeBeyondTheToleranceFailsTheMapAsItWouldHave() async throws {
    let plain = await uninterrupted(try tolerantMapChart(), over: failingItems, delays: 1)
    guard case .failure(let expected) = plain else {
      Issue.record("The uninterrupted run did not fail: \(plain)")
      return
    }
    let snapshot = try await snapshotAtTheDelay(
      tolerantMapChart(), over: failingItems, id: "tolerant-2")
    #expect(snapshot.flows[0].map?.failed.map(\.index) == [0])
    let clock = TestClock(wallClockStart: TestClock().wallClockStart.advanced(by: hour))
    // Element 1's deadline has passed: it settles at once, and element 2 fails.
    let resumed = try tolerantMapChart().start(resuming: snapshot, chart: "tolerant", clock: clock)
    let error = try await #require(throws: RunError.self) { try await resumed.result }
    #expect(error.kind == expected.kind)
    #expect(error.stateName == "Charge each")
    #expect(error.description == expected.description)
  }

  @Test func aSnapshotTakenAfterResumeKeepsTheRestoredFailureAsItWas() async throws {
    let first = try await snapshotAtTheDelay(
      tolerantMapChart(), over: tolerantMapItems, id: "tolerant-3")
    let clock = TestClock()
    let resumed = try tolerantMapChart().start(resuming: first, chart: "tolerant", clock: clock)
    try await clock.waitForSleepers(1)
    let second = try await resumed.snapshot()
    resumed.cancel()
    #expect(second.flows[0].map?.failed == first.flows[0].map?.failed)
    #expect(second.flows[0].map?.running.map(\.index) == [1])
  }

  @Test func aChartWhoseMapNowToleratesFewerFailuresIsRefused() async throws {
    let snapshot = try await snapshotAtTheDelay(
      tolerantMapChart(), over: tolerantMapItems, id: "tolerant-4")
    let error = try #require(throws: ResumeError.self) {
      _ = try tolerantMapChart(tolerated: 0).start(
        resuming: snapshot, chart: "tolerant", clock: TestClock())
    }
    #expect(
      error.misfits.map(\.reason) == [
        "Map 'Charge each', where the run stands, had tolerated 1 failed elements, and now tolerates 0: resume on a chart whose map tolerates at least 1."
      ])
  }

  /// `format-3-inside-map-with-failure.json`: the run of the first test standing in map
  /// "Charge each", element 0 failed and tolerated, element 1 waiting at its delay, element
  /// 2 not started. To write it again:
  /// `FLOWCHART_WRITE_SNAPSHOT_FIXTURES=1 swift test --filter ToleratedMapFailureSnapshotTests`.
  @Test func aStoredSnapshotWithAToleratedFailureDecodesAndResumes() async throws {
    let snapshot = try await storedSnapshot(
      "format-3-inside-map-with-failure", of: Basket.self
    ) {
      let clock = TestClock()
      let run = try tolerantMapChart().start(
        with: tolerantMapItems, id: RunID("stored-run-9")!, chart: "stored", clock: clock)
      try await clock.waitForSleepers(1)
      defer { run.cancel() }
      return try await run.snapshot()
    }
    #expect(snapshot.formatVersion == 3)
    let map = try #require(snapshot.flows[0].map)
    #expect(map.failed.map(\.index) == [0])
    #expect(map.failed.first?.underlyingError?.description == "card declined for 11")
    // Encodes back to its own JSON.
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let stored =
      try JSONSerialization.jsonObject(
        with: snapshotFixture("format-3-inside-map-with-failure")) as? NSDictionary
    let again = try JSONSerialization.jsonObject(with: encoder.encode(snapshot)) as? NSDictionary
    #expect(stored != nil && again == stored)
    let clock = TestClock(wallClockStart: TestClock().wallClockStart.advanced(by: hour))
    let run = try tolerantMapChart().start(resuming: snapshot, chart: "stored", clock: clock)
    try await clock.waitForSleepers(1)
    clock.advance(by: hour)
    let result = try await run.result
    #expect(result.pathNames == ["Open", "Charge each", "Ship"])
    #expect(result.context.totals == [21, 31])
    #expect(
      result.context.notes == [
        "open", "settled", "settled", "0 failed: card declined for 11",
        "collected [1, 2] of 3", "shipped",
      ])
  }
}

@Suite(.timeLimit(.minutes(5)))
struct CancelledTolerantMapTests {
  /// A run cancelled while its tolerant map's only element waits: the element's cancellation
  /// is not a failure the map tolerates, so `collect` never runs and the run ends cancelled
  /// (live and plain runs alike).
  @Test(arguments: [true, false])
  func anElementCutShortByTheRunsCancellationIsNotATolerantFailure(_ live: Bool) async throws {
    let collected = CollectedFailures()
    let chart = try tolerantMapChart(collected: collected)
    let basket = Basket(items: [Ledger(total: 20)])
    let clock = TestClock()
    let error: RunError
    if live {
      let handle = chart.start(with: basket, clock: clock)
      try await clock.waitForSleepers(1)
      handle.cancel()
      error = try await #require(throws: RunError.self) { try await handle.result }
    } else {
      let task = Task { try await chart.run(with: basket, clock: clock) }
      try await clock.waitForSleepers(1)
      task.cancel()
      guard case .failure(let thrown) = await task.result, let thrown = thrown as? RunError
      else {
        Issue.record("The cancelled run did not fail with a RunError.")
        return
      }
      error = thrown
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Charge each")
    #expect(collected.all.isEmpty)
  }
}
