import Flowchart
import Foundation
import Testing

@testable import FlowchartStores

/// The directory store's file format, its damaged files and its leftovers.
@Suite struct DirectoryRunStoreTests {
  @Test func aRunFileIsTwoHeaderLinesAndTheSnapshot() throws {
    let directory = TemporaryDirectory()
    let store = try DirectoryRunStore(directory: directory.path)
    try store.write(
      Runs.run("order-17", .waitingForInput(state: "Approve"), snapshot: Array("SNAP\n".utf8)))
    let text = try String(contentsOfFile: directory.file("order-17.run"), encoding: .utf8)
    #expect(
      text == """
        flowchart-run 1
        {"chart":"Orders","fingerprint":"f1","id":"order-17","snapshot":{"bytes":5,"fnv1a64":"\(DirectoryRunStore.fnv1a64(Array("SNAP\n".utf8)))"},"status":{"state":"Approve","status":"waitingForInput"},"updated":"2026-11-18T11:06:40Z"}
        SNAP

        """)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["order-17.run"])
  }

  @Test func theChecksumIsFNV1a64() {
    #expect(DirectoryRunStore.fnv1a64([]) == "cbf29ce484222325")
    #expect(DirectoryRunStore.fnv1a64(Array("a".utf8)) == "af63dc4c8601ec8c")
  }

  /// A damaged file of each kind, made from a good file of the run named like the case:
  /// what `load` throws, and what `listing` reports.
  static let damaged:
    [(
      name: String, damage: @Sendable ([UInt8]) -> [UInt8], kind: RunStoreError.Kind,
      message: String
    )] = {
      let advice = "Restore it from a backup or delete it."
      func replacing(_ old: String, _ new: String) -> @Sendable ([UInt8]) -> [UInt8] {
        { Array(String(decoding: $0, as: UTF8.self).replacingOccurrences(of: old, with: new).utf8) }
      }
      let checksum = DirectoryRunStore.fnv1a64(Array("0123456789".utf8))
      return [
        ("empty", { _ in [] }, .truncated, "The run file is empty. \(advice)"),
        (
          "magic", { _ in Array("flowch".utf8) }, .truncated,
          "The run file ends inside its first line. \(advice)"
        ),
        (
          "foreign", { _ in Array("{\"hello\": 1}\n".utf8) }, .notARunFile,
          "This is not a run file: it does not start with 'flowchart-run'. Move it out of the run store's directory."
        ),
        (
          "newer", replacing("flowchart-run 1", "flowchart-run 2"), .newerFormat(version: 2),
          "The run file is in format version 2; this version of Flowchart reads version 1 and older. Update Flowchart to read it."
        ),
        (
          "version", replacing("flowchart-run 1", "flowchart-run one"), .corrupted,
          "The run file's format version 'one' is not a number. \(advice)"
        ),
        (
          "header", { Array($0.prefix(40)) }, .truncated,
          "The run file ends inside its summary line. \(advice)"
        ),
        (
          "snapshot", { Array($0.dropLast(3)) }, .truncated,
          "The run file is cut short: its snapshot has 7 of 10 bytes. \(advice)"
        ),
        (
          "trailing", { $0 + [1, 2] }, .corrupted,
          "The run file has 2 bytes after its snapshot of 10 bytes. \(advice)"
        ),
        (
          "checksum", replacing("0123456789", "0123456780"), .corrupted,
          "The run file's snapshot does not match its checksum (fnv1a64 \(checksum)): it was changed or damaged. \(advice)"
        ),
        (
          "json",
          replacing("\"status\":{\"status\":\"running\"}", "\"status\":{\"status\":\"asleep\"}"),
          .corrupted,
          "The run file's summary line does not decode: at 'status.status': 'asleep' is not a run status; one of running, paused, waitingForInput, waitingUntil, failed, cancelled, finished was expected. \(advice)"
        ),
      ]
    }()

  @Test func aDamagedFileIsAnErrorNamingTheFileAndListingReportsIt() async throws {
    let directory = TemporaryDirectory()
    let store = try DirectoryRunStore(directory: directory.path)
    try store.write(Runs.run("good"))
    for file in Self.damaged {
      let good = try DirectoryRunStore.encode(
        Runs.run(file.name, snapshot: Array("0123456789".utf8)), path: "")
      _ = FileManager.default.createFile(
        atPath: directory.file("\(file.name).run"), contents: Data(file.damage(good)))
    }
    for file in Self.damaged {
      let path = directory.file("\(file.name).run")
      #expect(throws: RunStoreError(file.kind, path: path, message: file.message)) {
        _ = try store.read(Runs.id(file.name))
      }
    }
    // Listing reads only the header: a damaged snapshot shows only on load.
    let listing = try store.scan()
    #expect(listing.runs.map(\.id.text) == ["checksum", "good", "snapshot", "trailing"])
    let listed = Self.damaged.filter { !["snapshot", "trailing", "checksum"].contains($0.name) }
    #expect(
      listing.problems
        == listed.map {
          RunStoreProblem(location: directory.file("\($0.name).run"), message: $0.message)
        }.sorted { $0.location < $1.location })
    #expect(try await store.list() == listing.runs)
  }

  @Test func aFileNamedForAnotherRunIsRefused() throws {
    let directory = TemporaryDirectory()
    let store = try DirectoryRunStore(directory: directory.path)
    try store.write(Runs.run("original"))
    try FileManager.default.copyItem(
      atPath: directory.file("original.run"), toPath: directory.file("copy.run"))
    let path = directory.file("copy.run")
    let message =
      "The run file holds the run 'original', not 'copy' its name says: it was renamed or copied. Rename it to 'original.run' or delete it."
    #expect(throws: RunStoreError(.corrupted, path: path, message: message)) {
      _ = try store.read(Runs.id("copy"))
    }
    #expect(try store.scan().problems == [RunStoreProblem(location: path, message: message)])
  }

  @Test func otherFilesAreIgnoredAndABadNameIsReported() throws {
    let directory = TemporaryDirectory()
    let store = try DirectoryRunStore(directory: directory.path)
    try store.write(Runs.run("good"))
    _ = FileManager.default.createFile(
      atPath: directory.file("README.md"), contents: Data("hi".utf8))
    _ = FileManager.default.createFile(atPath: directory.file(".hidden.run"), contents: Data())
    _ = FileManager.default.createFile(atPath: directory.file("a b.run"), contents: Data())
    let listing = try store.scan()
    #expect(listing.runs.map(\.id.text) == ["good"])
    #expect(
      listing.problems == [
        RunStoreProblem(
          location: directory.file("a b.run"),
          message:
            "The file's name is not a run id and a '.run' extension: A run id is made of ASCII letters, digits, '.', '_' and '-'; 'a b' has ' '.. Move it out of the run store's directory."
        )
      ])
  }

  @Test func leftoverTemporaryFilesAreIgnoredAndRemovedOnlyWhenTheirWriterIsGone() throws {
    let directory = TemporaryDirectory()
    let store = try DirectoryRunStore(directory: directory.path)
    try store.write(Runs.run("kept"))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "exit 0"]
    try process.run()
    process.waitUntilExit()
    let dead = process.processIdentifier
    let names = [
      ".kept.\(dead).00000000000000aa.tmp",  // its writer has ended
      ".new.\(getpid()).00000000000000bb.tmp",  // this process, no save in flight
      ".kept.1.00000000000000cc.tmp",  // process 1 is running
      ".other-file",  // not a temporary file of the store
    ]
    for name in names {
      _ = FileManager.default.createFile(atPath: directory.file(name), contents: Data("torn".utf8))
    }
    #expect(try store.scan() == RunListing(runs: [Runs.run("kept").summary]))
    #expect(try store.read(Runs.id("new")) == nil)
    #expect(try store.removeLeftovers() == [names[0], names[1]].sorted())
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        == ["kept.run", names[2], names[3]])
    #expect(DirectoryRunStore.writer(ofTemporary: ".a.b.12.00000000000000aa.tmp") == 12)
    #expect(DirectoryRunStore.writer(ofTemporary: ".a.12.0aa.tmp") == nil)
    #expect(DirectoryRunStore.writer(ofTemporary: "a.12.00000000000000aa.tmp") == nil)
  }

  @Test func aStoreOverAFileIsAnError() throws {
    let directory = TemporaryDirectory()
    _ = FileManager.default.createFile(atPath: directory.file("file"), contents: Data())
    #expect(
      throws: RunStoreError(
        .system(operation: "open", code: ENOTDIR), path: directory.file("file"),
        message: "A run store needs a directory, and this is a file: give another path.")
    ) {
      _ = try DirectoryRunStore(directory: directory.file("file"))
    }
  }

  @Test func aMissingDirectoryIsCreated() throws {
    let directory = TemporaryDirectory()
    let store = try DirectoryRunStore(directory: directory.file("a/b/c"))
    try store.write(Runs.run("deep"))
    #expect(try store.read(Runs.id("deep")) == Runs.run("deep"))
  }
}
