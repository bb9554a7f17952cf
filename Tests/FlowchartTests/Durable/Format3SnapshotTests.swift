import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Format 3: what a snapshot made by this version is written in. Its stored files
// (`Fixtures/format-3-*.json`) are decoded and resumed to their results, as the format-1 and
// format-2 files are by `StoredSnapshotTests` and its siblings; those files are frozen (this
// version reads them and writes a snapshot read from them in its own format again, but makes
// no new one). To write the format-3 files again (only when format 3's JSON changes before a
// release):
//
//     FLOWCHART_WRITE_SNAPSHOT_FIXTURES=1 swift test --filter StoredFormat3SnapshotTests

/// The JSON object of `snapshot`, encoded.
private func object<Context: Codable & Sendable>(_ snapshot: RunSnapshot<Context>) throws
  -> [String: Any]
{
  try #require(
    try JSONSerialization.jsonObject(with: JSONEncoder().encode(snapshot)) as? [String: Any])
}

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

@Suite(.timeLimit(.minutes(5)))
struct StoredFormat3SnapshotTests {
  /// `format-3-waiting-for-input.json`: a run waiting for input at "Answer".
  @Test func aStoredSnapshotWaitingForInputDecodesAndResumes() async throws {
    if writesSnapshotFixtures {
      let run = try storedChart().start(
        with: Ledger(total: 0, notes: ["kept"]), id: RunID("stored-run-6")!, chart: "stored",
        clock: TestClock(), isPaused: true)
      var events = run.events().makeAsyncIterator()
      run.resume()
      await waitForInput(run, events: &events)
      try writeSnapshotFixture(try await run.snapshot(), as: "format-3-waiting-for-input")
      run.cancel()
    }
    let data = try snapshotFixture("format-3-waiting-for-input")
    let snapshot = try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: data)
    #expect(snapshot.formatVersion == 3)
    #expect(snapshot.id == RunID("stored-run-6"))
    #expect(snapshot.chart == "stored")
    #expect(snapshot.status == .waitingForInput(state: "Answer"))
    #expect(snapshot.position == "Answer")
    #expect(snapshot.pathKeys == ["Charge", "Answer"])
    #expect(snapshot.stepCount == 2)
    #expect(snapshot.updated == TestClock().wallClockStart)
    // The status and the counters with their defaults are not written: they read back.
    let stored = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(
      Set(stored.keys) == [
        "formatVersion", "id", "chart", "fingerprint", "updated", "position", "context", "path",
        "shapes",
      ])
    let run = try storedChart().start(resuming: snapshot, chart: "stored", clock: TestClock())
    try run.send(2, to: "Answer")
    let result = try await run.result
    #expect(result.pathNames == ["Charge", "Answer", "Big?", "Shrug"])
    #expect(result.context == Ledger(total: 3, notes: ["kept", "small"]))
  }

  /// `format-3-inside-map-at-delay.json`: a run standing in map "Charge each" over three
  /// items, element 0 done, element 1 waiting at its delay 20 minutes into its hour, element
  /// 2 not started (the run of `inside-map-at-delay.json`, in format 3).
  @Test func aStoredSnapshotInsideAMapResumesItsElements() async throws {
    let items = Basket(items: [Ledger(total: 10), Ledger(total: 20), Ledger(total: 30)])
    if writesSnapshotFixtures {
      let clock = TestClock()
      let run = try storedMapChart().start(
        with: items, id: RunID("stored-run-7")!, chart: "stored", clock: clock)
      try await clock.waitForSleepers(1)
      clock.advance(by: .seconds(3_600))
      try await clock.waitForSleepers(1)
      clock.advance(by: .seconds(1_200))
      try writeSnapshotFixture(try await run.snapshot(), as: "format-3-inside-map-at-delay")
      run.cancel()
    }
    let snapshot = try JSONDecoder().decode(
      RunSnapshot<Basket>.self, from: snapshotFixture("format-3-inside-map-at-delay"))
    let deadline = TestClock().wallClockStart.advanced(by: .seconds(7_200))
    #expect(snapshot.formatVersion == 3)
    #expect(snapshot.status == .running)
    #expect(snapshot.position == "Charge each")
    #expect(snapshot.pathKeys == ["Open", "Charge each"])
    let map = try #require(snapshot.flows[0].map)
    #expect(map.elements == 3)
    #expect(map.done.map(\.index) == [0])
    #expect(map.running.map(\.index) == [1])
    let running = try #require(map.running.first?.run)
    #expect(running.position == .waitingUntil("Cool off"))
    #expect(running.deadline == deadline)
    // Resumed 10 minutes before element 1's deadline: it waits only those, then element 2
    // starts and waits its hour.
    let clock = TestClock(wallClockStart: deadline.advanced(by: .zero - .seconds(600)))
    let run = try storedMapChart().start(resuming: snapshot, chart: "stored", clock: clock)
    try await clock.waitForSleepers(1)
    #expect(clock.advance(by: .seconds(599)) == 0)
    #expect(clock.advance(by: .seconds(1)) == 1)
    try await clock.waitForSleepers(1)
    clock.advance(by: .seconds(3_600))
    let result = try await run.result
    #expect(result.pathNames == ["Open", "Charge each", "Ship"])
    #expect(result.context.totals == [11, 21, 31])
    #expect(result.context.notes == ["open", "settled", "settled", "settled", "shipped"])
  }

  /// `format-3-dispatch-waiting.json`: a run standing in "Split", its first branch waiting
  /// for input at "Answer" and its second finished (the run of `dispatch-waiting.json`, in
  /// format 3).
  @Test func aStoredSnapshotOfADispatchDecodesAndResumes() async throws {
    if writesSnapshotFixtures {
      let run = try dispatchChart().start(
        with: Ledger(total: 0, notes: ["kept"]), id: RunID("stored-run-8")!, chart: "stored",
        clock: TestClock(), isPaused: true)
      var events = run.events(bufferingNewest: .max).makeAsyncIterator()
      run.resume()
      await waitForInput(run, events: &events)
      try writeSnapshotFixture(try await run.snapshot(), as: "format-3-dispatch-waiting")
      run.cancel()
    }
    let snapshot = try JSONDecoder().decode(
      RunSnapshot<Ledger>.self, from: snapshotFixture("format-3-dispatch-waiting"))
    #expect(snapshot.formatVersion == 3)
    #expect(snapshot.status == .waitingForInput(state: "Answer"))
    #expect(snapshot.position == "Split")
    #expect(snapshot.branchPositions == ["Split/Answer", "Split/Pack"])
    #expect(snapshot.flows.map(\.branch?.dispatch) == [nil, "Split", "Split"])
    let packed = Shared(0)
    let run = try dispatchChart(packed: packed).start(
      resuming: snapshot, chart: "stored", clock: TestClock())
    try run.send(3, to: "Answer")
    let result = try await run.result
    #expect(packed.value == 0)
    #expect(result.pathNames == ["Prepare", "Split", "Answer", "Record", "Pack", "Ship"])
    #expect(
      result.context
        == Ledger(total: 3, notes: ["kept", "prepared", "answered", "packed", "shipped"]))
  }

  @Test(arguments: [
    "format-3-waiting-for-input", "format-3-dispatch-waiting",
  ])
  func aStoredSnapshotEncodesBackToItsOwnJSON(_ name: String) throws {
    let stored = try #require(
      try JSONSerialization.jsonObject(with: snapshotFixture(name)) as? NSDictionary)
    let snapshot = try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: snapshotFixture(name))
    #expect(try object(snapshot) as NSDictionary == stored)
  }
}

@Suite(.timeLimit(.minutes(5)))
struct Format3EncodingTests {
  @Test func aSnapshotOfThisVersionIsInFormat3AndLeavesItsDefaultsOut() async throws {
    let handle = try storedChart().start(with: Ledger(), clock: TestClock(), isPaused: true)
    let snapshot = try await handle.snapshot()
    handle.cancel()
    #expect(snapshot.formatVersion == 3)
    #expect(RunSnapshot<Ledger>.currentFormatVersion == 3)
    let json = try object(snapshot)
    // Held at its start: its status (paused) is written, its chart (none) is not.
    #expect(
      Set(json.keys) == [
        "formatVersion", "id", "fingerprint", "status", "updated", "position", "context",
        "path", "shapes",
      ])
    #expect(json["status"] as? [String] == ["paused"])
    #expect(json["position"] as? [String] == ["entering", "Charge"])
    #expect(json["path"] as? [String] == [])
    let shapes = try #require(json["shapes"] as? [[Any]])
    #expect(shapes.count == 1)
    #expect(shapes.first?.first as? String == "Charge")
    #expect(shapes.first?.dropFirst().first as? String == "action")
  }

  /// Every status and position written in format 3 reads back as it was.
  @Test(arguments: [
    RunStatus.running, .paused, .cancelled, .failed(state: "Charge", reason: "declined"),
    .failed(state: nil, reason: "no state"),
  ])
  func aStatusReadsBackAsItWas(_ status: RunStatus) throws {
    let snapshot = RunSnapshot<Ledger>(
      id: RunID("status-1")!, chart: "", fingerprint: "0123456789abcdef", status: status,
      updated: TestClock().wallClockStart, stepLimit: 2_000,
      flows: [
        FlowSnapshot(
          flow: 0, position: .entering("Charge"), context: Ledger(total: 1),
          path: Array(repeating: "Charge", count: RunResult<Ledger>.pathCapacity),
          stepCount: 1_500)
      ],
      mailbox: [MailboxEntry(state: "Answer", value: .live(4))],
      shapes: [
        "Charge": StateShape(kind: "action", isFinal: false, exits: ["next → Answer"]),
        "Answer": StateShape(kind: "waiting state", isFinal: false, exits: ["next → Big?"]),
      ], formatVersion: 3)
    let json = try object(snapshot)
    #expect(json["stepLimit"] as? Int == 2_000)
    #expect(json["stepCount"] as? Int == 1_500)
    let mailbox = try #require(json["mailbox"] as? [[Any]])
    #expect(mailbox.count == 1)
    #expect(mailbox.first?.first as? String == "Answer")
    #expect(mailbox.first?.last as? Int == 4)
    let decoded = try roundTrip(snapshot)
    #expect(decoded.status == status)
    #expect(decoded.stepLimit == 2_000)
    #expect(decoded.stepCount == 1_500)
    #expect(decoded.pendingInputs == ["Answer"])
    #expect(decoded.shapes == snapshot.shapes)
  }

  @Test func aFinishedRunReadsBackWithItsDecision() async throws {
    let chart = try Flowchart<Int> {
      MultipleCondition("Pick", isFinal: true) { $0 % 2 == 0 ? "even" : "odd" }
    }
    let handle = chart.start(with: 4)
    _ = try await handle.result
    let snapshot = try await handle.snapshot()
    let data = try JSONEncoder().encode(snapshot)
    let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(json["position"] as? [String] == ["finished", "Pick", "key", "even"])
    #expect(json["status"] == nil)
    let decoded = try JSONDecoder().decode(RunSnapshot<Int>.self, from: data)
    #expect(decoded.status == .finished)
    #expect(decoded.flows[0].position == .finished("Pick", .key("even")))
  }

  @Test func aSnapshotReadFromFormat1IsWrittenInFormat1Again() throws {
    let data = try snapshotFixture("waiting-for-input")
    let snapshot = try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: data)
    #expect(snapshot.formatVersion == 1)
    let json = try object(snapshot)
    #expect(json["formatVersion"] as? Int == 1)
    #expect(json["flows"] != nil)
  }
}
