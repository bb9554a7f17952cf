import Flowchart
import Foundation
import Testing

@Suite("Run ids, statuses and filters")
struct RunStoreVocabularyTests {
  @Test("a new id is written like a version 4 UUID, and a seeded generator repeats it")
  func randomIDs() {
    let id = RunID()
    #expect(id.text.count == 36)
    #expect(Array(id.text)[14] == "4")
    #expect(RunID(id.text) == id)
    var first = SeededGenerator(seed: 7)
    var second = SeededGenerator(seed: 7)
    #expect(RunID(random: &first) == RunID(random: &second))
    #expect(RunID() != RunID())
  }

  @Test(
    "refuses text that is not a safe file name, saying why",
    arguments: [
      ("", "A run id cannot be empty."),
      (".hidden", "A run id cannot start with '.': '.hidden'."),
      (
        "order/42",
        "A run id is made of ASCII letters, digits, '.', '_' and '-'; 'order/42' has '/'."
      ),
      (
        "commande-é",
        "A run id is made of ASCII letters, digits, '.', '_' and '-'; 'commande-é' has a non-ASCII character."
      ),
      (
        String(repeating: "a", count: 129),
        "A run id has at most 128 characters; 'aaaaaaaaaaaaaaaaaaaa…' has 129."
      ),
    ])
  func refusals(text: String, problem: String) {
    #expect(RunID(text) == nil)
    #expect(RunID.problem(with: text) == problem)
  }

  @Test("accepts a natural name such as an order number")
  func naturalNames() {
    #expect(RunID("order-2026_11.27")?.description == "order-2026_11.27")
  }

  @Test("statuses code as an object of their name and what they name")
  func statusCoding() throws {
    let time = try #require(WallClockTime(rfc3339: "2026-11-30T00:00:00Z"))
    let statuses: [RunStatus] = [
      .running, .paused, .waitingForInput(state: "Approve"), .waitingUntil(time, state: "Remind"),
      .failed(state: "Charge", reason: "declined"), .failed(state: nil, reason: "step limit"),
      .cancelled, .finished,
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = try statuses.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
    #expect(
      text == [
        #"{"status":"running"}"#, #"{"status":"paused"}"#,
        #"{"state":"Approve","status":"waitingForInput"}"#,
        #"{"state":"Remind","status":"waitingUntil","until":"2026-11-30T00:00:00Z"}"#,
        #"{"reason":"declined","state":"Charge","status":"failed"}"#,
        #"{"reason":"step limit","status":"failed"}"#,
        #"{"status":"cancelled"}"#, #"{"status":"finished"}"#,
      ])
    let decoded = try text.map { try JSONDecoder().decode(RunStatus.self, from: Data($0.utf8)) }
    #expect(decoded == statuses)
    #expect(statuses.map(\.hasEnded) == [false, false, false, false, true, true, true, true])
  }

  @Test("an unknown status or a bad id does not decode, and says why")
  func decodingErrors() {
    #expect {
      _ = try JSONDecoder().decode(RunStatus.self, from: Data(#"{"status":"sleeping"}"#.utf8))
    } throws: { error in
      "\(error)".contains("'sleeping' is not a run status")
    }
    #expect {
      _ = try JSONDecoder().decode([RunID].self, from: Data(#"["a/b"]"#.utf8))
    } throws: { error in
      "\(error)".contains("'a/b' has '/'")
    }
  }

  @Test("statuses read as sentences")
  func statusWords() throws {
    let time = try #require(WallClockTime(rfc3339: "2026-11-30T00:00:00Z"))
    #expect(
      RunStatus.waitingForInput(state: "Approve").description == "waiting for input at 'Approve'")
    #expect(
      RunStatus.waitingUntil(time, state: "Remind").description
        == "waiting at 'Remind' until 2026-11-30T00:00:00Z")
    #expect(
      RunStatus.failed(state: "Charge", reason: "declined").description
        == "failed at 'Charge': declined")
  }

  @Test("a filter matches every condition it has")
  func filters() throws {
    let id = try #require(RunID("a"))
    let now = WallClockTime(secondsSince1970: 0)
    let waiting = RunSummary(
      id: id, status: .waitingForInput(state: "Approve"), chart: "orders", fingerprint: "f",
      updated: now)
    let failed = RunSummary(
      id: id, status: .failed(state: "Approve", reason: "no"), chart: "orders", fingerprint: "f",
      updated: now)
    #expect(RunFilter.all.matches(waiting))
    #expect(RunFilter.waitingForInput(at: "Approve").matches(waiting))
    #expect(!RunFilter.waitingForInput(at: "Approve").matches(failed))
    #expect(!RunFilter.waitingForInput(at: "Ship").matches(waiting))
    #expect(RunFilter(state: "Approve").matches(failed))
    #expect(!RunFilter(chart: "invoices").matches(waiting))
  }
}
