import Flowchart
import Foundation
import Testing

@testable import FlowchartStores

/// A directory under the system's temporary directory, removed with its contents when the
/// value is released.
final class TemporaryDirectory: Sendable {
  let path: String

  init(_ label: String = "store") {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("flowchart-\(label)-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: path)
  }

  /// The path of `name` inside the directory.
  func file(_ name: String) -> String { path + "/" + name }
}

/// The stores every conformance test runs on.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case memory, directory
  #if SQLite
    case sqlite
  #endif

  var testDescription: String { rawValue }

  /// A new, empty store of this kind, and the directory that holds it (kept alive as long as
  /// the store is used).
  func make() throws -> (any RunStore, TemporaryDirectory) {
    let directory = TemporaryDirectory(rawValue)
    switch self {
    case .memory: return (InMemoryRunStore(), directory)
    case .directory: return (try DirectoryRunStore(directory: directory.file("runs")), directory)
    #if SQLite
      case .sqlite: return (try SQLiteRunStore(path: directory.file("runs.sqlite")), directory)
    #endif
    }
  }
}

/// The package's seeded generator (SplitMix64), so every randomized case can be re-run
/// from its seed.
typealias SeededGenerator = SplitMix64

/// Runs for the tests: a summary of each status, a snapshot of chosen bytes.
enum Runs {
  static let time = WallClockTime(secondsSince1970: 1_795_000_000)

  static func id(_ text: String) -> RunID { RunID(text)! }

  static func run(
    _ id: String, _ status: RunStatus = .running, chart: String = "Orders",
    snapshot: [UInt8] = Array("{}".utf8), updated: WallClockTime = time
  ) -> StoredRun {
    StoredRun(
      summary: RunSummary(
        id: Self.id(id), status: status, chart: chart, fingerprint: "f1", updated: updated),
      snapshot: snapshot)
  }

  /// One run of each status, with two runs waiting for input at 'Approve'.
  static let everyStatus: [StoredRun] = [
    run("a-running"),
    run("b-paused", .paused),
    run("c-approve", .waitingForInput(state: "Approve")),
    run("d-approve", .waitingForInput(state: "Approve"), chart: "Refunds"),
    run("e-upload", .waitingForInput(state: "Upload")),
    run("f-until", .waitingUntil(time.advanced(by: .seconds(3600)), state: "Remind")),
    run("g-failed", .failed(state: "Charge", reason: "card declined\nsecond line ✓")),
    run("h-failed", .failed(state: nil, reason: "timed out")),
    run("i-cancelled", .cancelled),
    run("j-finished", .finished),
  ]
}
