import Flowchart
import FlowchartFiles
import Foundation
import Testing

private struct Order: Sendable {
  var items: [String] = []
}

/// A clock that never moves, so that every time in a log is 0.
private struct FrozenClock: Clock {
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

/// A live run's log written to a file as JSON lines, and read back.
@Suite(.timeLimit(.minutes(5)))
struct RunLogFileTests {
  private func temporaryURL() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "flowchart-run-log-\(UUID().uuidString).jsonl")
  }

  @Test func aRunWritesEveryLineOfItsLogAndTheFileReadsBack() async throws {
    let url = temporaryURL()
    defer { try? FileManager.default.removeItem(at: url) }
    let chart = try Flowchart<Order> {
      Action("Pick") { $0.items.append("tea") }
      Dispatch("Pack") { order, branch in
        order.items = branch.items
      } branches: {
        Branch {
          Action("Wrap", isFinal: true) { $0.items.append("wrapped") }
        }
      }
      Action("Ship", isFinal: true)
    }
    let file = try RunLogFile(writingTo: url)
    // Three lines in memory: the file holds the rest.
    let handle = chart.start(
      with: Order(), clock: FrozenClock(), log: RunLog.Options(keepingLast: 3, sink: file))
    _ = try await handle.result
    #expect(file.writeError == nil)

    let records = try RunLogFile.records(in: url)
    #expect(records.count == handle.log.lineCount)
    #expect(records.map(\.line) == Array(1...records.count))
    #expect(records.suffix(3).map(\.text) == handle.log.lines)
    #expect(handle.log.droppedLineCount == records.count - 3)
    // Each record is the line, with its event's flow and state; a change has neither.
    #expect(
      records.map(\.text) == [
        "  0.000s  run started at 'Pick'",
        "  0.000s  entered 'Pick'",
        "  0.000s  'Pick' finished in 0.000s",
        #"            items: [] → ["tea"]"#,
        "  0.000s  entered 'Pack'",
        "  0.000s  'Pack' started its branches",
        "  0.000s  [1] branch 1 of 'Pack' started",
        "  0.000s  [1] entered 'Wrap'",
        "  0.000s  [1] 'Wrap' finished in 0.000s",
        #"            items: ["tea"] → ["tea", "wrapped"]"#,
        "  0.000s  [1] branch 1 of 'Pack' ended",
        "  0.000s  'Pack' joined its branches",
        "  0.000s  'Pack' finished in 0.000s",
        #"            items: ["tea"] → ["tea", "wrapped"]"#,
        "  0.000s  entered 'Ship'",
        "  0.000s  'Ship' finished in 0.000s",
        "  0.000s  run finished at 'Ship', after 4 states",
      ])
    #expect(records[7].flow == 1)
    #expect(records[7].state == "Wrap")
    #expect(records[3].flow == nil && records[3].state == nil && records[3].time == nil)
    #expect(records[7].time == 0)
  }

  @Test func eachRecordIsOneJSONObjectOnItsOwnLine() async throws {
    let url = temporaryURL()
    defer { try? FileManager.default.removeItem(at: url) }
    let file = try RunLogFile(writingTo: url)
    let chart = try Flowchart<Order> { Action("Only", isFinal: true) }
    _ = try await chart.start(with: Order(), clock: FrozenClock(), log: RunLog.Options(sink: file))
      .result
    let text = try String(contentsOf: url, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 5)
    #expect(lines.last == "")
    #expect(
      lines.first
        == #"{"event":"runStarted","flow":0,"line":1,"state":"Only","stateIndex":0,"text":"  0.000s  run started at 'Only'","time":0}"#
    )
  }

  @Test func aFileThatCannotBeCreatedIsAnErrorAtOnce() {
    let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/run.jsonl")
    #expect(throws: (any Error).self) { try RunLogFile(writingTo: url) }
  }

  @Test func aClosedFileTakesNoMoreLines() async throws {
    let url = temporaryURL()
    defer { try? FileManager.default.removeItem(at: url) }
    let file = try RunLogFile(writingTo: url)
    file.close()
    let chart = try Flowchart<Order> { Action("Only", isFinal: true) }
    _ = try await chart.start(with: Order(), log: RunLog.Options(sink: file)).result
    #expect(try RunLogFile.records(in: url).isEmpty)
  }
}
