import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// A fresh folder of chart files, removed when the test ends.
struct Folder: ~Copyable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "FlowchartFilesTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }

  /// Writes `text` to `name`, creating its folders, and returns its URL.
  @discardableResult
  func write(_ name: String, _ text: String) throws -> URL {
    let file = url.appendingPathComponent(name)
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: file, atomically: true, encoding: .utf8)
    return file
  }
}

struct IncludeTests {
  @Test func anIncludedFileIsABlockOfStates() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.json",
      """
      {"flowchart": [
        {"action": "Start", "run": "log"},
        {"include": "parts/end.xml"}
      ]}
      """)
    try folder.write(
      "parts/end.xml",
      """
      <flowchart>
        <action name="Middle" run="log"/>
        <action name="End" final="true"/>
      </flowchart>
      """)
    let file = try ChartFile.read(contentsOf: main)
    var handlers = HandlerRegistry<Launch>()
    handlers["log"] = .action { $0.log.append("logged") }
    let chart = try file.flowchart(handlers: handlers)
    let result = try chart.runSynchronously(
      with: Launch(isFirstLaunch: true, passesOtherCheck: true))
    #expect(result.pathNames == ["Start", "Middle", "End"])
    let middle = try #require(chart.state(named: "Middle"))
    #expect(chart[middle].location.fileID.hasSuffix("parts/end.xml"))
    #expect(chart[middle].location.line == 2)
    #expect(file.text(in: .json).contains("{\"include\": \"parts/end.xml\"}"))
  }

  @Test func anIncludeCycleIsALocatedError() throws {
    let folder = try Folder()
    let first = try folder.write(
      "a.json", "{\"flowchart\": [{\"action\": \"A\"}, {\"include\": \"b.json\"}]}")
    try folder.write(
      "b.json", "{\"flowchart\": [\n  {\"include\": \"a.json\"}\n]}")
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: first)
    }
    #expect(found.count == 1)
    #expect(
      found.first?.contains("b.json:2:3: include cycle: Including 'a.json' here makes a cycle")
        == true)
  }

  @Test func aMissingFileIsALocatedError() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.xml",
      """
      <flowchart>
        <action name="A"/>
        <include path="missing.xml"/>
      </flowchart>
      """)
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: main)
    }
    #expect(found.count == 1)
    #expect(found.first?.contains("main.xml:3:3: unreadable file:") == true)
    #expect(found.first?.contains("missing.xml") == true)
  }

  @Test func problemsInAnIncludedFileNameThatFile() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.json", "{\"flowchart\": [{\"include\": \"part.json\"}]}")
    try folder.write("part.json", "{\"flowchart\": [{\"acton\": \"A\"}]}")
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: main)
    }
    #expect(found.count == 1)
    #expect(
      found.first?.contains("part.json:1:16: malformed file: This object declares no state") == true
    )
  }

  @Test func anIncludeLeftUnreadIsReportedWhenBinding() throws {
    let file = try parse("{\"flowchart\": [{\"include\": \"other.json\"}]}", .json)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(
      found.contains {
        $0.hasPrefix(
          "test.json:1:16: unreadable file: The file 'other.json' included here was not read")
      })
  }
}
