import Flowchart
import Foundation
import Testing

// The stored snapshots in `Fixtures/`, which the tests decode and resume so that a later
// change cannot break stored runs silently. Each is written by the test that reads it, with
// `FLOWCHART_WRITE_SNAPSHOT_FIXTURES=1` (see `StoredSnapshotTests.swift` for which files are
// frozen in an older format).

/// The folder of the stored snapshots.
let snapshotFixtureFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("Fixtures")

/// Whether this test run writes the stored snapshots again.
var writesSnapshotFixtures: Bool {
  ProcessInfo.processInfo.environment["FLOWCHART_WRITE_SNAPSHOT_FIXTURES"] == "1"
}

/// The bytes of the stored snapshot `name` (`Fixtures/<name>.json`).
func snapshotFixture(_ name: String) throws -> Data {
  try Data(contentsOf: snapshotFixtureFolder.appendingPathComponent("\(name).json"))
}

/// Writes `snapshot` as the stored snapshot `name`: pretty-printed JSON, keys sorted.
func writeSnapshotFixture<Context: Codable & Sendable>(
  _ snapshot: RunSnapshot<Context>, as name: String
) throws {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  try encoder.encode(snapshot).write(
    to: snapshotFixtureFolder.appendingPathComponent("\(name).json"))
}

/// The stored snapshot `name`, decoded; when the fixtures are written, `make` makes it and
/// it is written first.
func storedSnapshot<Context: Codable & Sendable>(
  _ name: String, of context: Context.Type,
  writing make: () async throws -> RunSnapshot<Context>
) async throws -> RunSnapshot<Context> {
  if writesSnapshotFixtures { try writeSnapshotFixture(try await make(), as: name) }
  return try JSONDecoder().decode(RunSnapshot<Context>.self, from: snapshotFixture(name))
}
