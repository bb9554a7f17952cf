import Foundation
import Testing

@testable import Flowchart

// Corrupted and hostile snapshots: each either decodes and resumes, or fails with an error
// that says what is wrong; none traps.

private let fixtureFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("Fixtures")

private func fixture(_ name: String) throws -> Data {
  try Data(contentsOf: fixtureFolder.appendingPathComponent("\(name).json"))
}

/// The fixture `name` with `change` applied to its JSON object.
private func edited(_ name: String, _ change: (inout [String: Any]) -> Void) throws -> Data {
  var object = try #require(try JSONSerialization.jsonObject(with: fixture(name)) as? [String: Any])
  change(&object)
  return try JSONSerialization.data(withJSONObject: object)
}

private func flow(_ object: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
  var flows = object["flows"] as! [[String: Any]]
  change(&flows[0])
  object["flows"] = flows
}

/// The description of the error decoding `data` throws.
private func decodingError(_ data: Data) -> String? {
  do {
    _ = try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: data)
    return nil
  } catch let DecodingError.dataCorrupted(context) {
    return context.debugDescription
  } catch {
    return "\(error)"
  }
}

/// Applies one random mutation to a JSON value: removes a key, makes a number negative or
/// huge, shortens an array, changes a string.
private func mutate(_ value: Any, using generator: inout SeededGenerator) -> Any {
  switch value {
  case var object as [String: Any]:
    guard let key = object.keys.sorted().randomElement(using: &generator) else { return object }
    if Int.random(in: 0..<4, using: &generator) == 0 {
      object[key] = nil
    } else {
      object[key] = mutate(object[key]!, using: &generator)
    }
    return object
  case var array as [Any]:
    guard !array.isEmpty else { return [0] }
    if Bool.random(using: &generator) {
      array.removeLast(Int.random(in: 1...array.count, using: &generator))
    } else {
      let index = Int.random(in: 0..<array.count, using: &generator)
      array[index] = mutate(array[index], using: &generator)
    }
    return array
  case let number as NSNumber:
    let choices: [Any] = [
      0 &- number.int64Value, Int64.max, Int64.min, -1, 0, 1e300, "x", NSNull(),
      number.int64Value &+ 1,
    ]
    return choices.randomElement(using: &generator)!
  case is String:
    let choices: [Any] = ["", "Big?", "Shrug", "Nowhere", "finished", "entering", 3, NSNull()]
    return choices.randomElement(using: &generator)!
  default:
    return "changed"
  }
}

@Suite(.timeLimit(.minutes(5)))
struct HostileSnapshotTests {
  @Test func anUnknownFormatVersionIsRefused() throws {
    let data = try edited("waiting-for-input") { $0["formatVersion"] = 3 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: it is in format version 3, and this version of Flowchart reads formats 1 and 2 only."
    )
  }

  @Test func aNegativeStepCountIsRefused() throws {
    let data = try edited("waiting-for-input") { flow(&$0) { $0["stepCount"] = -3 } }
    #expect(
      decodingError(data) == "Not a usable run snapshot: flow 0's step count is negative (-3).")
  }

  @Test func aPathThatDoesNotMatchItsCountIsRefused() throws {
    let data = try edited("waiting-for-input") { flow(&$0) { $0["path"] = ["Charge"] } }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 0 entered 2 states, so its path keeps 2, but it lists 1."
    )
  }

  @Test func aSecondFlowIsRefused() throws {
    let data = try edited("waiting-for-input") { object in
      let flows = object["flows"] as! [[String: Any]]
      object["flows"] = flows + flows
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: format 1 holds exactly one flow, the top-level flow (number 0), and this one holds 2."
    )
  }

  @Test func aPositionTheShapesDoNotDescribeIsRefused() throws {
    let data = try edited("waiting-for-input") { $0["shapes"] = [String: Any]() }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 0 stands at 'Answer', which its table of shapes does not describe."
    )
  }

  @Test func aStatusThatDisagreesWithThePositionIsRefused() throws {
    let data = try edited("waiting-for-input") { $0["status"] = ["status": "finished"] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: its status is finished, but its top-level flow waits for input at 'Answer'."
    )
  }

  /// 10,000 mutated snapshots (`FLOWCHART_SNAPSHOT_FUZZ` sets another count): each decodes
  /// and resumes to an end, or throws; a trap would end the test process.
  @Test func mutatedSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 10_000
    let names = ["held-at-start", "value-waiting", "waiting-for-input", "failed", "finished"]
    let sources = try names.map { try JSONSerialization.jsonObject(with: fixture($0)) }
    let raw = try names.map(fixture)
    let chart = try Flowchart<Ledger> {
      // Wrapping arithmetic: a hostile context may hold any number.
      Action("Charge") { $0.total &+= 1 }
      Wait("Answer", for: Int.self) { $0.total &+= $1 }
      Condition("Big?") {
        $0.total > 3
      } yes: {
        Action("Celebrate", isFinal: true) { $0.notes.append("big") }
      } no: {
        Action("Shrug", isFinal: true) { $0.notes.append("small") }
      }
    }
    var generator = SeededGenerator(seed: 22)
    var decoded = 0
    var resumed = 0
    for round in 0..<count {
      let data: Data
      if round % 4 == 0 {
        // Bytes flipped.
        var bytes = [UInt8](raw[round / 4 % raw.count])
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
          let index = Int.random(in: 0..<bytes.count, using: &generator)
          bytes[index] ^= UInt8.random(in: 1...255, using: &generator)
        }
        data = Data(bytes)
      } else {
        var value = sources[round % sources.count]
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
          value = mutate(value, using: &generator)
        }
        guard JSONSerialization.isValidJSONObject(value),
          let encoded = try? JSONSerialization.data(withJSONObject: value)
        else { continue }
        data = encoded
      }
      guard let snapshot = try? JSONDecoder().decode(RunSnapshot<Ledger>.self, from: data) else {
        continue
      }
      decoded += 1
      guard let handle = try? chart.start(resuming: snapshot) else { continue }
      resumed += 1
      _ = try? handle.send(5, to: "Answer")
      _ = try? await handle.result
    }
    // Some mutations leave a usable snapshot (a note changed, say); most do not.
    #expect(decoded > 0)
    #expect(resumed > 0)
  }
}
