import Foundation
import Testing

@testable import Flowchart

@Suite(.timeLimit(.minutes(5)))
struct ChartVersionTests {
  /// A snapshot of `SnapshotTests.chart()`'s run waiting for input at "Answer".
  private func waitingSnapshot(chart identity: String = "") async throws -> RunSnapshot<Ledger> {
    let handle = try SnapshotTests.chart().start(with: Ledger(), isPaused: true)
    handle.run.identify(id: nil, chart: identity)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    await waitForInput(handle, events: &events)
    let snapshot = try await handle.snapshot()
    handle.cancel()
    return try roundTrip(snapshot)
  }

  /// Resumes `snapshot` on `chart`, sends 5 to `waitingState`, and returns the result.
  private func finish(
    _ snapshot: RunSnapshot<Ledger>, on chart: Flowchart<Ledger>,
    migrating: [String: String] = [:], waitingState: String = "Answer"
  ) async throws -> RunResult<Ledger> {
    let handle = try chart.start(resuming: snapshot, migrating: migrating)
    try handle.send(5, to: waitingState)
    return try await handle.result
  }

  @Test func positionKeysNameStatesFromTheTopLevelDownWithOrdinalsWhereNamesRepeat() throws {
    let chart = try Flowchart<Ledger> {
      Condition("Check") {
        $0.total > 0
      } yes: {
        Action("Note") { _ in }
        Action("Note", isFinal: true) { _ in }
      } no: {
        Action("A/B", isFinal: true) { _ in }
      }
    }
    #expect(chart.positionKeys == ["Check", "Check/Note#1", "Check/Note#2", "Check/A\\/B"])
  }

  @Test func theFingerprintIgnoresCodeAndFollowsStructure() throws {
    let first = try Flowchart<Ledger> { Action("A", isFinal: true) { $0.total = 1 } }
    let code = try Flowchart<Ledger> { Action("A", isFinal: true) { $0.total = 2 } }
    let renamed = try Flowchart<Ledger> { Action("B", isFinal: true) { $0.total = 1 } }
    #expect(first.structuralFingerprint == code.structuralFingerprint)
    #expect(first.structuralFingerprint != renamed.structuralFingerprint)
    #expect(first.structuralFingerprint.count == 16)
    // FNV-1a 64 over the documented line "A|action|final|\n", computed independently.
    #expect(first.structuralFingerprint == "5160afd461b02c84")
  }

  @Test func aStateAddedElsewhereIsAccepted() async throws {
    let snapshot = try await waitingSnapshot()
    let changed = try Flowchart<Ledger> {
      Action("Prepare") { $0.notes.append("prepared") }
      Wait("Answer", for: Int.self) { $0.total += $1 }
      Condition("Big?") {
        $0.total > 3
      } yes: {
        Action("Audit") { $0.notes.append("audited") }
        Action("Celebrate", isFinal: true) { $0.notes.append("big") }
      } no: {
        Action("Shrug", isFinal: true) { $0.notes.append("small") }
      }
    }
    #expect(changed.structuralFingerprint != snapshot.fingerprint)
    let result = try await finish(snapshot, on: changed)
    #expect(result.pathNames == ["Prepare", "Answer", "Big?", "Audit", "Celebrate"])
  }

  @Test func changedCodeIsAccepted() async throws {
    let snapshot = try await waitingSnapshot()
    let changed = try Flowchart<Ledger> {
      Action("Prepare") { $0.notes.append("prepared twice") }
      Wait("Answer", for: Int.self) { $0.total += 2 * $1 }
      Condition("Big?") {
        $0.total > 3
      } yes: {
        Action("Celebrate", isFinal: true) { $0.notes.append("BIG") }
      } no: {
        Action("Shrug", isFinal: true) { $0.notes.append("small") }
      }
    }
    #expect(changed.structuralFingerprint == snapshot.fingerprint)
    let result = try await finish(snapshot, on: changed)
    #expect(result.context == Ledger(total: 10, notes: ["prepared", "BIG"]))
  }

  private func renamed() throws -> Flowchart<Ledger> {
    try Flowchart<Ledger> {
      Action("Prepare") { $0.notes.append("prepared") }
      Wait("Reply", for: Int.self) { $0.total += $1 }
      Condition("Big?") {
        $0.total > 3
      } yes: {
        Action("Celebrate", isFinal: true) { $0.notes.append("big") }
      } no: {
        Action("Shrug", isFinal: true) { $0.notes.append("small") }
      }
    }
  }

  @Test func aPositionRemovedIsRefusedWithEachMisfit() async throws {
    let snapshot = try await waitingSnapshot()
    let error = #expect(throws: ResumeError.self) {
      try self.renamed().start(resuming: snapshot)
    }
    #expect(
      error?.description == """
        The snapshot of run \(snapshot.id) does not fit the chart: 2 positions no longer fit.
        - 'Answer', where the run waits for input, no longer exists in the chart: restore it, or map it to a state of the chart with `migrating:`.
        - 'Answer', which the run entered earlier (its path holds it), no longer exists in the chart: map it to a state of the chart with `migrating:`.
        """)
    #expect(error?.misfits.map(\.position) == ["Answer", "Answer"])
    // Through `resume(from:)`, the same refusal is a run error with no state.
    let runError = await #expect(throws: RunError.self) {
      try await self.renamed().resume(from: snapshot)
    }
    #expect(runError?.state == nil)
    #expect(runError?.underlyingError is ResumeError)
  }

  @Test func aKindChangedIsRefused() async throws {
    let snapshot = try await waitingSnapshot()
    let changed = try Flowchart<Ledger> {
      Action("Prepare") { $0.notes.append("prepared") }
      Action("Answer") { $0.total += 5 }
      Condition("Big?") {
        $0.total > 3
      } yes: {
        Action("Celebrate", isFinal: true) { $0.notes.append("big") }
      } no: {
        Action("Shrug", isFinal: true) { $0.notes.append("small") }
      }
    }
    let error = #expect(throws: ResumeError.self) { try changed.start(resuming: snapshot) }
    #expect(
      error?.misfits.map(\.reason) == [
        "'Answer', where the run waits for input, was a waiting state and is now an action: a run cannot go on at a state of another kind; map it to a state of its kind with `migrating:`."
      ])
  }

  @Test func exitsChangedAreRefused() async throws {
    let snapshot = try await waitingSnapshot()
    let changed = try Flowchart<Ledger> {
      Action("Prepare") { $0.notes.append("prepared") }
      Wait("Answer", for: Int.self) { $0.total += $1 }
      Action("Log") { _ in }
      Condition("Big?") {
        $0.total > 3
      } yes: {
        Action("Celebrate", isFinal: true) { $0.notes.append("big") }
      } no: {
        Action("Shrug", isFinal: true) { $0.notes.append("small") }
      }
    }
    let error = #expect(throws: ResumeError.self) { try changed.start(resuming: snapshot) }
    #expect(
      error?.misfits.map(\.reason) == [
        "'Answer', where the run waits for input, had the exits next → Big? and now has next → Log: map its targets with `migrating:`, or resume on a chart whose exits are those."
      ])
  }

  @Test func aMigrationMapsAnOldPositionToANewOne() async throws {
    let snapshot = try await waitingSnapshot()
    let result = try await finish(
      snapshot, on: try renamed(), migrating: ["Answer": "Reply"], waitingState: "Reply")
    #expect(result.pathNames == ["Prepare", "Reply", "Big?", "Celebrate"])
    #expect(result.context == Ledger(total: 5, notes: ["prepared", "big"]))
  }

  @Test func aSnapshotOfAnotherChartIsRefused() async throws {
    let snapshot = try await waitingSnapshot(chart: "orders")
    let error = #expect(throws: ResumeError.self) {
      try SnapshotTests.chart().start(resuming: snapshot, chart: "invoices")
    }
    #expect(
      error?.description
        == "The snapshot is of a run of chart 'orders', not of 'invoices': resume it with the chart it was made from."
    )
    // The same identity, or none given, fits.
    let handle = try SnapshotTests.chart().start(resuming: snapshot, chart: "orders")
    handle.cancel()
  }
}
