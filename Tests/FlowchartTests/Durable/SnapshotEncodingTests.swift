import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// The snapshot's own fields are written and read as plain strings, numbers and containers
// (not as nested `Encodable` values): the JSON must stay the documented format 1. A resume on
// a chart of the snapshot's own fingerprint skips comparing the shapes; a logged run can write
// its log to a sink from where it was resumed.

/// The chart of the stored runs (as `StoredSnapshotTests` declares it).
private func storedChart() throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Charge") { $0.total += 1 }
    Wait("Answer", for: Int.self) { $0.total += $1 }
    Condition("Big?") {
      $0.total > 3
    } yes: {
      Action("Celebrate", isFinal: true) { $0.notes.append("big") }
    } no: {
      Action("Shrug", isFinal: true) { $0.notes.append("small") }
    }
  }
}

/// The fixture `name`'s JSON object, with `change` applied.
private func fixtureObject(
  _ name: String, _ change: (inout [String: Any]) -> Void = { _ in }
) throws -> [String: Any] {
  let data = try snapshotFixture(name)
  var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  change(&object)
  return object
}

/// A sink that keeps each line's text.
private final class LineCollector: RunLogSink {
  private let lines = Lock<[String]>([])

  func write(_ line: RunLog.Line) {
    lines.withLock { $0.append(line.text) }
  }

  var texts: [String] { lines.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(5)))
struct SnapshotEncodingTests {
  @Test(arguments: [
    "between-attempts", "failed", "finished", "held-at-start", "parked-at-delay",
    "value-waiting", "waiting-for-input",
  ])
  func aStoredSnapshotEncodesBackToItsOwnJSON(_ name: String) throws {
    let stored = try fixtureObject(name)
    let snapshot = try JSONDecoder().decode(
      RunSnapshot<Ledger>.self, from: JSONSerialization.data(withJSONObject: stored))
    let encoded = try JSONEncoder().encode(snapshot)
    let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? NSDictionary)
    #expect(object == stored as NSDictionary)
  }

  @Test func aSnapshotOfTheChartsOwnStructureResumesWithoutComparingShapes() async throws {
    let chart = try storedChart()
    // The shapes say "Answer" had another exit: a chart of the same fingerprint has the
    // same structure, so the table is not compared (it is a snapshot's record of its own
    // chart, for a chart that changed).
    let stale = try fixtureObject("waiting-for-input") { object in
      object["shapes"] = ["Answer": ["kind": "waiting state", "final": false, "exits": []]]
    }
    #expect(stale["fingerprint"] as? String == chart.structuralFingerprint)
    let snapshot = try JSONDecoder().decode(
      RunSnapshot<Ledger>.self, from: JSONSerialization.data(withJSONObject: stale))
    let run = try chart.start(resuming: snapshot, chart: "stored", clock: TestClock())
    try run.send(2, to: "Answer")
    let result = try await run.result
    #expect(result.pathNames == ["Charge", "Answer", "Big?", "Shrug"])

    // Another fingerprint: the shapes are compared, and this one no longer fits.
    var changed = stale
    changed["fingerprint"] = "0123456789abcdef"
    let other = try JSONDecoder().decode(
      RunSnapshot<Ledger>.self, from: JSONSerialization.data(withJSONObject: changed))
    #expect(throws: ResumeError.self) {
      _ = try chart.start(resuming: other, chart: "stored", clock: TestClock())
    }
    do throws(ResumeError) {
      _ = try chart.start(resuming: other, chart: "stored", clock: TestClock())
    } catch {
      #expect(
        error.misfits.map(\.reason) == [
          "'Answer', where the run waits for input, had the exits none and now has next → Big?: map its targets with `migrating:`, or resume on a chart whose exits are those."
        ])
    }
  }

  @Test func aRunStartedWithAnIDAndResumedWritesItsLogToASink() async throws {
    let chart = try storedChart()
    let first = LineCollector()
    let handle = chart.start(
      with: Ledger(), id: RunID("logged-1")!, chart: "stored", clock: TestClock(),
      isPaused: true, log: RunLog.Options(sink: first))
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    await waitForInput(handle, events: &events)
    let snapshot = try await handle.snapshot()
    #expect(snapshot.id == RunID("logged-1"))
    #expect(snapshot.chart == "stored")
    handle.cancel()
    _ = try? await handle.result
    #expect(first.texts.contains { $0.contains("'Answer'") })

    let second = LineCollector()
    let resumed = try chart.start(
      resuming: snapshot, chart: "stored", clock: TestClock(), log: RunLog.Options(sink: second))
    try resumed.send(5, to: "Answer")
    _ = try await resumed.result
    let texts = second.texts
    // From where the run goes on: it enters 'Answer' again, not 'Charge'.
    #expect(!texts.isEmpty)
    #expect(!texts.contains { $0.contains("'Charge'") })
    #expect(texts.contains { $0.contains("'Celebrate'") })
    #expect(resumed.log.lines == texts)
  }
}
