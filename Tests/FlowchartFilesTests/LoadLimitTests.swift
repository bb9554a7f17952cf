import Flowchart
import FlowchartFiles
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files `s0` … `s<levels>`: each runs the next twice, as two subflows that spell its path
/// differently (`s1.json`, `./s1.json`), so that a loader without a cache reads and compiles
/// 2^levels files.
func writeSubflowFanOut(levels: Int, in folder: borrowing Folder) throws -> URL {
  for level in 0...levels {
    let text =
      level == levels
      ? #"{"flowchart": [{"action": "End", "final": true}]}"#
      : """
      {"flowchart": [
        {"subflow": "A\(level)", "chart": "s\(level + 1).json"},
        {"subflow": "B\(level)", "chart": "./s\(level + 1).json"},
        {"action": "End", "final": true}
      ]}
      """
    try folder.write("s\(level).json", text)
  }
  return folder.url.appendingPathComponent("s0.json")
}

/// Files `main.json` (which includes `i0.json`, then ends) and `i0` … `i<levels>`: each
/// includes the next twice, so the chart has 2^levels + 1 states.
func writeIncludeFanOut(levels: Int, in folder: borrowing Folder) throws -> URL {
  for level in 0...levels {
    let text =
      level == levels
      ? #"{"flowchart": [{"action": "Step"}]}"#
      : #"{"flowchart": [{"include": "i\#(level + 1).json"}, {"include": "i\#(level + 1).json"}]}"#
    try folder.write("i\(level).json", text)
  }
  return try folder.write(
    "main.json",
    #"{"flowchart": [{"include": "i0.json"}, {"action": "End", "final": true}]}"#)
}

struct LoadLimitTests {
  @Test(arguments: [4, 24])
  func aSubflowFanOutReadsAndCompilesEachFileOnce(levels: Int) throws {
    let folder = try Folder()
    let top = try writeSubflowFanOut(levels: levels, in: folder)
    var reads = 0
    let file = try ChartFile.read(
      contentsOf: top, fileSizeLimit: ChartFile.defaultFileSizeLimit, reads: &reads)
    #expect(reads == levels + 1)
    let session = BindingSession(stateLimit: ChartFile.defaultStateLimit)
    let chart = try file.flowchart(
      handlers: HandlerRegistry<ChartValue>(), session: session, scope: "")
    #expect(session.compiles == levels)
    // Each chart's three states, once: the subflows share the compiled charts.
    #expect(session.states == 3 * levels + 1)
    // A run visits 2^levels charts: run the small one only.
    if levels < 10 {
      let result = try chart.runSynchronously(with: [:])
      #expect(result.pathNames == ["A0", "B0", "End"])
    }
  }

  @Test func aSubflowFanOutThroughIncludesClosureParsesEachFileOnce() throws {
    let levels = 24
    var calls = 0
    let text = { (level: Int) in
      level == levels
        ? #"{"flowchart": [{"action": "End", "final": true}]}"#
        : #"{"flowchart": [{"subflow": "A", "chart": "s\#(level + 1).json"}, {"subflow": "B", "chart": "./s\#(level + 1).json"}, {"action": "End", "final": true}]}"#
    }
    let file = try ChartFile.parse(Array(text(0).utf8), syntax: .json, path: "s0.json") {
      path, _ in
      calls += 1
      let name = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
      let level = Int(name.dropFirst().dropLast(5))!
      return (name, .json, Array(text(level).utf8))
    }
    // One call for each statement of each file, each file parsed once.
    #expect(calls == 2 * levels)
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    #expect(chart.states.count == 3)
  }

  @Test func anIncludeFanOutPastTheLimitIsOneLocatedError() throws {
    let folder = try Folder()
    let main = try writeIncludeFanOut(levels: 24, in: folder)
    let file = try ChartFile.read(contentsOf: main)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(
      found == [
        "\(main.relativePath):1:16: malformed file: Including 'i0.json' here adds 16777216 states, counting what it includes, which takes the load past its limit of 1000000 states. Include it fewer times, or raise the limit (stateLimit)."
      ])
  }

  @Test func anErrorDescribesItsFirstHundredProblemsAndKeepsThemAll() throws {
    // The leaf's one state, included 2^10 times, runs code the registry lacks: 1,024 problems.
    let folder = try Folder()
    let main = try writeIncludeFanOut(levels: 10, in: folder)
    try folder.write("i10.json", #"{"flowchart": [{"action": "Step", "run": "missing"}]}"#)
    let file = try ChartFile.read(contentsOf: main)
    #expect {
      _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    } throws: { error in
      guard let error = error as? DefinitionError else { return false }
      let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
      return error.problems.count == 1024 && lines.count == 102
        && lines[0] == "The flowchart declared at \(main.relativePath):1:1 has 1024 problems:"
        && lines[1] == "  \(error.problems[0])"
        && lines[100] == "  \(error.problems[99])"
        && lines[101] == "  … and 924 more problems."
    }
  }

  @Test func theStateLimitIsTheCallersAndCountsEveryStateMade() throws {
    let folder = try Folder()
    let main = try writeIncludeFanOut(levels: 4, in: folder)
    let file = try ChartFile.read(contentsOf: main)
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>(), stateLimit: 17)
    #expect(chart.states.count == 17)
    let over = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>(), stateLimit: 15)
    }
    #expect(over.count == 1)
    #expect(over.first?.contains("adds 16 states") == true)
    // Without includes, the state past the limit is where the error is.
    let plain = try ChartFile.parse(
      #"{"flowchart": [{"action": "A"}, {"action": "B"}, {"action": "C", "final": true}]}"#,
      syntax: .json, path: "plain.json")
    #expect(
      problems { () throws(DefinitionError) in
        _ = try plain.flowchart(handlers: HandlerRegistry<ChartValue>(), stateLimit: 2)
      } == [
        "plain.json:1:50: malformed file: The chart makes more than 2 states here, counting the files it includes and the charts its subflows and maps run: the limit of a load. Split the chart, or raise the limit (stateLimit)."
      ])
    #expect(
      problems { () throws(DefinitionError) in
        _ = try plain.flowchart(handlers: HandlerRegistry<ChartValue>(), stateLimit: 0)
      } == [
        "plain.json:1:1: malformed file: The state limit is 0: a chart has at least one state, so give a limit of 1 or more."
      ])
  }

  @Test func aSubflowsChartCountsOnceAgainstTheLimit() throws {
    let folder = try Folder()
    let top = try writeSubflowFanOut(levels: 3, in: folder)
    let file = try ChartFile.read(contentsOf: top)
    // 3 states in each of s0, s1 and s2, 1 in s3.
    _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>(), stateLimit: 10)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>(), stateLimit: 9)
    }
    #expect(found.count == 1)
    // States are counted as they are made: s0's last state is the tenth.
    #expect(
      found.first?.contains("s0.json:4:3: malformed file: The chart makes more than 9 states")
        == true, "\(found)")
  }

  // MARK: - Paths

  @Test func anIncludeCycleIsFoundWhateverThePathsSpelling() throws {
    let folder = try Folder()
    try folder.write(
      "inc/inc2.json",
      #"{"flowchart": [{"action": "A"}, {"include": "../inc/inc2.json"}]}"#)
    let relative = URL(
      fileURLWithPath: "inc/inc2.json",
      relativeTo: URL(fileURLWithPath: folder.url.path, isDirectory: true))
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: relative)
    }
    #expect(
      found == [
        "inc/inc2.json:1:33: include cycle: Including '../inc/inc2.json' here makes a cycle (inc/inc2.json → inc/inc2.json): a file cannot include itself. Use a goTo arrow to loop instead."
      ])
    let absolute = folder.url.appendingPathComponent("inc/inc2.json")
    let fromAbsolute = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: absolute)
    }
    #expect(
      fromAbsolute == [
        "\(absolute.path):1:33: include cycle: Including '../inc/inc2.json' here makes a cycle (\(absolute.path) → \(absolute.path)): a file cannot include itself. Use a goTo arrow to loop instead."
      ])
  }

  @Test func anIncludeCycleThroughASymbolicLinkIsFound() throws {
    let folder = try Folder()
    let main = try folder.write(
      "a.json", #"{"flowchart": [{"action": "A"}, {"include": "parts/link.json"}]}"#)
    try FileManager.default.createDirectory(
      at: folder.url.appendingPathComponent("parts"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: folder.url.appendingPathComponent("parts/link.json").path,
      withDestinationPath: "../a.json")
    let relative = URL(
      fileURLWithPath: "a.json",
      relativeTo: URL(fileURLWithPath: folder.url.path, isDirectory: true))
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: relative)
    }
    #expect(
      found == [
        "a.json:1:33: include cycle: Including 'parts/link.json' here makes a cycle (a.json → parts/link.json): a file cannot include itself. Use a goTo arrow to loop instead."
      ])
    _ = main
  }

  @Test func aFileTwoFilesIncludeIsReadOnce() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.json",
      #"{"flowchart": [{"include": "b/b.json"}, {"include": "c.json"}, {"action": "End", "final": true}]}"#
    )
    try folder.write("b/b.json", #"{"flowchart": [{"include": "../d.json"}]}"#)
    try folder.write("c.json", #"{"flowchart": [{"include": "b/../d.json"}]}"#)
    try folder.write("d.json", #"{"flowchart": [{"action": "D"}]}"#)
    var reads = 0
    let file = try ChartFile.read(
      contentsOf: main, fileSizeLimit: ChartFile.defaultFileSizeLimit, reads: &reads)
    #expect(reads == 4)
    #expect(
      file.includedFiles["b/b.json"]?.includedFiles["../d.json"]?.path.hasSuffix("/d.json") == true)
  }

  // MARK: - Files that are not chart files

  /// The one problem reading `url` finds, with the folder's path removed.
  func readingProblem(
    _ url: URL, in folder: borrowing Folder, fileSizeLimit: Int = ChartFile.defaultFileSizeLimit
  ) -> [String] {
    problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: url, fileSizeLimit: fileSizeLimit)
    }.map { $0.replacingOccurrences(of: folder.url.path + "/", with: "") }
  }

  @Test func aFolderIsNotAChartFile() throws {
    let folder = try Folder()
    let directory = folder.url.appendingPathComponent("x.json")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    #expect(
      readingProblem(directory, in: folder) == [
        "x.json:1:1: unreadable file: 'x.json' cannot be read: it is a folder, not a file. Name a chart file."
      ])
  }

  @Test func aSymbolicLinkLoopIsSaidInWords() throws {
    let folder = try Folder()
    let first = folder.url.appendingPathComponent("one.json")
    try FileManager.default.createSymbolicLink(atPath: first.path, withDestinationPath: "two.json")
    try FileManager.default.createSymbolicLink(
      atPath: folder.url.appendingPathComponent("two.json").path, withDestinationPath: "one.json")
    #expect(
      readingProblem(first, in: folder) == [
        "one.json:1:1: unreadable file: 'one.json' cannot be read: its symbolic links lead round in a loop. Fix the links."
      ])
  }

  @Test func aPipeIsRefusedWithoutWaiting() throws {
    let folder = try Folder()
    let pipe = folder.url.appendingPathComponent("f.json")
    try #require(mkfifo(pipe.path, 0o644) == 0)
    #expect(
      readingProblem(pipe, in: folder) == [
        "f.json:1:1: unreadable file: 'f.json' cannot be read: it is a pipe (FIFO), not a regular file: only regular files are read. Name a chart file."
      ])
  }

  @Test func aLinkToADeviceIsRefusedWithoutReadingIt() throws {
    let folder = try Folder()
    let zero = folder.url.appendingPathComponent("z.json")
    try FileManager.default.createSymbolicLink(atPath: zero.path, withDestinationPath: "/dev/zero")
    #expect(
      readingProblem(zero, in: folder) == [
        "z.json:1:1: unreadable file: 'z.json' cannot be read: it is a device, not a regular file: only regular files are read. Name a chart file."
      ])
  }

  @Test func aFileLargerThanTheLimitIsRefused() throws {
    let folder = try Folder()
    let main = try folder.write("main.json", #"{"flowchart": [{"action": "A", "final": true}]}"#)
    #expect(
      readingProblem(main, in: folder, fileSizeLimit: 10) == [
        "main.json:1:1: unreadable file: 'main.json' cannot be read: it is larger than 10 bytes, the largest chart file read (fileSizeLimit). Split it into included files, or raise the limit."
      ])
    #expect(throws: Never.self) { try ChartFile.read(contentsOf: main, fileSizeLimit: 100) }
  }

  @Test func anUnreadableFileSaysSoInOneSentence() throws {
    guard getuid() != 0 else { return }  // root reads every file
    let folder = try Folder()
    let main = try folder.write("main.json", #"{"flowchart": [{"action": "A", "final": true}]}"#)
    try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: main.path)
    #expect(
      readingProblem(main, in: folder) == [
        "main.json:1:1: unreadable file: 'main.json' cannot be read: you do not have permission to read it. Check its permissions."
      ])
  }

  @Test func anXMLFileInAnotherEncodingIsSaidInWords() throws {
    let declared = problems { () throws(DefinitionError) in
      _ = try ChartFile.parse(
        "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<flowchart/>", syntax: .xml, path: "u.xml")
    }
    #expect(
      declared == [
        "u.xml:1:21: malformed file: The XML declaration says encoding=\"UTF-16\", but chart files are read as UTF-8 only: save the file as UTF-8, and write encoding=\"UTF-8\" or leave it out."
      ])
    let utf16 = Array("<flowchart/>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.parse([0xFF, 0xFE] + utf16, syntax: .xml, path: "w.xml")
    }
    #expect(
      found == [
        "w.xml:1:1: malformed file: The file is UTF-16 (or UTF-32): chart files are read as UTF-8 only. Save it as UTF-8."
      ])
    // UTF-8, in any case, is read.
    #expect(throws: Never.self) {
      try ChartFile.parse(
        "<?xml version='1.0' encoding='utf-8'?>\n<flowchart><action name=\"A\" final=\"true\"/></flowchart>",
        syntax: .xml, path: "ok.xml")
    }
  }

  // MARK: - JSON values

  @Test func aValueNestedTooDeepSaysSoBriefly() throws {
    let deep = String(repeating: "[", count: 100_000)
    #expect {
      _ = try ChartValue(jsonText: deep)
    } throws: { error in
      "\(error)"
        == "Arrays and objects nest deeper than the limit of 512 levels here (line 1, column 513)."
    }
    let nested = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(throws: Never.self) { try ChartValue(jsonText: nested) }
  }

  @Test func valueMessagesNeverQuoteMuchOfTheText() throws {
    let key = String(repeating: "k", count: 10_000)
    #expect {
      _ = try ChartValue(jsonText: "{\"\(key)\": 1, \"\(key)\": 2}")
    } throws: { error in
      "\(error)".count < 200 && "\(error)".hasPrefix("The key \"kkk")
    }
    #expect(
      try ChartValue(jsonText: #"{"a": [1, true, null, "x"]}"#) == ["a": [1, true, nil, "x"]])
    #expect {
      _ = try ChartValue(jsonText: "")
    } throws: { error in
      "\(error)" == "The value is empty (line 1, column 1)."
    }
  }

  @Test func aValueAloneReadsAsAChartFileStoresIt() throws {
    // A value alone is built without the located tree a chart file reads first: both give the
    // same value, and refuse a key written twice in a large object (found by hash).
    let keys = (0..<20).map { "\"k\($0)\": [\($0), {\"x\": null, \"y\": [true, \"\\u00e9\"]}]" }
    let text = "{" + keys.joined(separator: ", ") + "}"
    let file = try ChartFile.parse(
      #"{"flowchart": [{"action": "A", "final": true, "store": [{"path": "p", "value": "#
        + text + "}]}]}", syntax: .json, path: "store.json")
    guard case .action(let action) = file.states.first?.kind else {
      Issue.record("not an action")
      return
    }
    let value = try ChartValue(jsonText: text)
    #expect(action.stores.first?.value == value)
    #expect(value[path: "k19.1.y.1"] == "é")
    #expect {
      _ = try ChartValue(jsonText: "{" + keys.joined(separator: ", ") + #", "k17": 1}"#)
    } throws: { error in
      "\(error)" == #"The key "k17" appears twice in one object: keep one (line 1, column 962)."#
    }
  }
}
