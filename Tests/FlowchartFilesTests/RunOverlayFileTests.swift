import Flowchart
import FlowchartFiles
import Foundation
import Testing

private struct Basket: Sendable {
  var isPaid = false
}

private struct Declined: Error {}

/// A clock that never moves, so that every time in a log is 0 (a file's times are seconds
/// as a `Double`, which round).
private struct StoppedClock: Clock {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  var now: Instant { Instant(offset: .zero) }
  var minimumResolution: Duration { .zero }
  func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

/// A run log file read back as a run drawn on its chart: the same drawing as the run's own
/// log, and clear errors for a file that cannot be drawn.
@Suite(.timeLimit(.minutes(5)))
struct RunOverlayFileTests {
  // swift-format-ignore
  private func shop() throws -> Flowchart<Basket> {
    try Flowchart<Basket> {
      Condition("Paid?") { $0.isPaid } yes: {
        Action("Ship", isFinal: true)
      } no: {
        Dispatch("Remind") {
          Branch("Mail") { Action("Send mail", isFinal: true) }
          Branch("Text") { Action("Send text", isFinal: true) { _ in throw Declined() } }
        }
        MultipleCondition("Channel") { _ in "web" } exits: {
          Case("web") { Action("Web", isFinal: true) }
          Default { Action("Other", isFinal: true) }
        }
      }
    }
  }

  /// Runs the shop with a file sink and returns the handle's log and the file's records.
  private func run(_ chart: Flowchart<Basket>) async throws -> (RunLog, [RunLogFile.Record]) {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "flowchart-overlay-\(UUID().uuidString).jsonl")
    defer { try? FileManager.default.removeItem(at: url) }
    let file = try RunLogFile(writingTo: url)
    let handle = chart.start(with: Basket(), clock: StoppedClock(), log: RunLog.Options(sink: file))
    _ = try? await handle.result
    return (handle.log, try RunLogFile.records(in: url))
  }

  @Test func aFileDrawsTheSameRunAsTheLogItWasWrittenFrom() async throws {
    let chart = try shop()
    let (log, records) = try await run(chart)
    let fromLog = RunOverlay(log: log)
    let fromFile = try RunOverlay(records: records, chart: chart)
    #expect(fromFile.ending == .failed)
    #expect(fromFile.failure?.kind == "thrown error")
    // The failure is told at the state inside the branch that threw, as the log tells it,
    // not at the dispatch whose line reports it.
    #expect(fromFile.failure == fromLog.failure)
    #expect(fromFile.failure?.state.map { chart[$0].name } == "Send text")
    #expect(fromFile.states == fromLog.states)
    #expect(fromFile.steps == fromLog.steps)
    #expect(fromFile.flowEnds == fromLog.flowEnds)
    #expect(fromFile.branches == fromLog.branches)
    #expect(fromFile.spans == fromLog.spans)
    #expect(
      chart.mermaidDescription(showing: fromFile) == chart.mermaidDescription(showing: fromLog))
    #expect(chart.dotDescription(showing: fromFile) == chart.dotDescription(showing: fromLog))
    #expect(chart.htmlReport(of: fromFile) == chart.htmlReport(of: fromLog))
    let text = chart.dotDescription(showing: fromFile)
    #expect(text.contains(#"s4 [label="Send text\n×1 · 0.000s\nfailed (thrown error): "#))
    #expect(text.contains(#"id="s4", class="failed""#))
    #expect(text.contains(#"id="s5", class="unreached""#))
  }

  @Test func aFileOfAnotherChartIsAnErrorNamingTheLineAndTheState() async throws {
    let (_, records) = try await run(try shop())
    let other = try Flowchart<Basket> { Action("Paid?", isFinal: true) }
    let error = #expect(throws: RunLogFile.ReadingError.self) {
      try RunOverlay(records: records, chart: other)
    }
    #expect(error?.description.hasPrefix("line ") == true)
    #expect(error?.message.contains("is not a state of the chart") == true)
  }

  @Test func aFailureAtAStateNotOfTheChartIsAnErrorNamingTheLine() throws {
    var record = RunLogFile.Record(
      line: 3, text: "  0.000s  'Paid?' failed", time: 0, flow: 0, state: "Paid?")
    record.event = "failed"
    record.stateIndex = 0
    record.errorStateIndex = 99
    let error = #expect(throws: RunLogFile.ReadingError.self) {
      try RunOverlay(records: [record], chart: try shop())
    }
    #expect(
      error?.description
        == "line 3: the error's state 99 is not a state of the chart (it has 8 states): draw a run log on the chart that ran it"
    )
  }

  @Test func aMapsElementsReadFromAFileAreDrawnOnItsBox() throws {
    let element = try Flowchart<Int> { Action("Handle", isFinal: true) }
    let chart = try Flowchart<[Int]> {
      Map("Each", over: { $0 }, running: element, toleratedFailures: 1) { _, _ in }
      Action("End", isFinal: true)
    }
    let lines = [
      #"{"line":1,"text":"  0.000s  entered 'Each'","time":0,"flow":0,"state":"Each","event":"entered","stateIndex":0}"#,
      #"{"line":2,"text":"  0.000s  'Each' ended its elements","time":0,"flow":0,"state":"Each","event":"mapEnded","stateIndex":0,"finished":3,"failed":1,"skipped":2}"#,
    ]
    let records = try lines.map {
      try JSONDecoder().decode(RunLogFile.Record.self, from: Data($0.utf8))
    }
    let run = try RunOverlay(records: records, chart: chart)
    let tally = try #require(run.maps[StateID(0)])
    #expect(tally.finished == 3)
    #expect(tally.failed == 1)
    #expect(tally.skipped == 2)
    #expect(
      chart.mermaidDescription(showing: run).contains(
        #"s0[/"Each<br>×1 · 0.000s<br>3 finished · 1 failed · 2 skipped"\]"#))
  }

  @Test func aFileWithoutEventsIsAnErrorThatSaysWhy() {
    let records = [RunLogFile.Record(line: 1, text: "  0.000s  entered 'Paid?'", time: 0, flow: 0)]
    let error = #expect(throws: RunLogFile.ReadingError.self) {
      try RunOverlay(records: records, chart: Flowchart<Basket>?.none)
    }
    #expect(error?.message.contains("older version") == true)
  }
}
