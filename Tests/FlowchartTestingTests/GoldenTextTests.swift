import Flowchart
import Foundation
import Testing

@testable import FlowchartTesting

/// A directory of its own for each test that writes golden files, removed afterwards.
private func scratchDirectory() throws -> URL {
  let directory = FileManager.default.temporaryDirectory
    .appendingPathComponent("FlowchartTestingTests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  return directory
}

struct GoldenTextTests {
  @Test func theHealthWorkflowPrintsAsItsGoldenTree() throws {
    let chart = try healthWorkflow()
    expectTree(
      chart,
      matches: """
        Willing to exercise? (S)
        Y- Lift weights (A)
        |  Do sit-ups (A) !
        N- Injured? (S) !
        """)
    expectTree(chart, matchesFile: "Golden/health.txt")
  }

  @Test func equalTextsHaveNoDifference() {
    #expect(GoldenText.difference(actual: "a\nb\n", expected: "a\nb\n") == nil)
  }

  @Test func aWrongGoldenTextFailsWithALineDiff() throws {
    let chart = try healthWorkflow()
    let expected = """
      Willing to exercise? (S)
      Y- Lift weights (A)
      |  Do situps (A) !
      N- Injured? (S) !

      """
    let report = GoldenText.difference(actual: chart.treeDescription, expected: expected)
    expectText(
      report ?? "",
      matches: """
        The text differs from the expected text (- expected, + actual):
        @@ -1 +1 @@
          Willing to exercise? (S)
          Y- Lift weights (A)
        - |  Do situps (A) !
        + |  Do sit-ups (A) !
          N- Injured? (S) !
        """)
  }

  @Test func aFailingExpectationRecordsTheDiffAtItsOwnLine() throws {
    let chart = try healthWorkflow()
    let line = #line + 2
    let issues = IssueReporting.recording {
      expectTree(chart, matches: "Willing to exercise? (S)")
    }
    let issue = try #require(issues.first)
    #expect(issues.count == 1)
    #expect(issue.sourceLocation.line == line)
    #expect(issue.sourceLocation.fileName == "GoldenTextTests.swift")
    #expect(issue.comment.contains("+ Y- Lift weights (A)"))
    #expect(issue.comment.contains("  Willing to exercise? (S)"))
  }

  @Test func anInsertedLineShowsAsOneAddition() {
    let report = GoldenText.difference(
      actual: "1\n2\n3\nnew\n4\n5\n6\n7\n8\n", expected: "1\n2\n3\n4\n5\n6\n7\n8\n")
    #expect(
      report == """
        The text differs from the expected text (- expected, + actual):
        @@ -2 +2 @@
          2
          3
        + new
          4
          5
        """)
  }

  @Test func distantChangesMakeSeparateStretches() {
    let expected = (1...12).map { "\($0)" }.joined(separator: "\n")
    let actual = expected.replacing("2\n", with: "two\n").replacing("11", with: "eleven")
    let report = GoldenText.difference(actual: actual, expected: expected)
    #expect(
      report == """
        The text differs from the expected text (- expected, + actual):
        @@ -1 +1 @@
          1
        - 2
        + two
          3
          4
        @@ -9 +9 @@
          9
          10
        - 11
        + eleven
          12
        """)
  }

  @Test func aMissingFinalNewlineIsNamed() {
    #expect(
      GoldenText.difference(actual: "a\n", expected: "a")
        == "The texts differ only in the newline at the end: the actual text has it.")
  }

  @Test func aGoldenFileMismatchShowsTheDiffAndHowToRecord() throws {
    let directory = try scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("tree.txt")
    try "old\n".write(to: file, atomically: true, encoding: .utf8)
    let report = GoldenText.fileDifference(actual: "new\n", path: file.path)
    #expect(
      report == """
        The text differs from the expected text (- expected, + actual):
        @@ -1 +1 @@
        - old
        + new
        Golden file: \(file.path). To accept the actual text, run the tests with FLOWCHART_RECORD=1.
        """)
    // Not recording: the file is left as it was.
    #expect(try String(contentsOf: file, encoding: .utf8) == "old\n")
  }

  @Test func aMissingGoldenFileIsRecordedAndFailsOnce() throws {
    let directory = try scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("Nested/tree.txt").path
    let first = GoldenText.fileDifference(actual: "text\n", path: path)
    #expect(
      first?.hasPrefix("There was no golden file at \(path): it now holds the actual text.") == true
    )
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "text\n")
    #expect(GoldenText.fileDifference(actual: "text\n", path: path) == nil)
  }

  @Test func aRelativePathIsBesideTheTestFile() throws {
    let directory = try scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let testFile = directory.appendingPathComponent("SomeTests.swift").path
    try "tree\n".write(
      to: directory.appendingPathComponent("Golden.txt"), atomically: true, encoding: .utf8)
    #expect(
      GoldenText.fileDifference(actual: "tree\n", path: "Golden.txt", filePath: testFile) == nil)
    #expect(
      GoldenText.fileDifference(actual: "other\n", path: "Golden.txt", filePath: testFile) != nil)
  }

  @Test func recordingRewritesTheFileAndFailsOnce() throws {
    let directory = try scratchDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("tree.txt").path
    try "old\n".write(toFile: path, atomically: true, encoding: .utf8)
    let recorded = GoldenText.fileDifference(
      actual: "new\n", path: path, filePath: #filePath, recording: true)
    #expect(
      recorded
        == "FLOWCHART_RECORD is set, so the golden file \(path) was rewritten with the actual text. Check it, then run the test again without FLOWCHART_RECORD."
    )
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
    // Once recorded, the text matches, recording or not.
    #expect(
      GoldenText.fileDifference(actual: "new\n", path: path, filePath: #filePath, recording: true)
        == nil)
    #expect(GoldenText.fileDifference(actual: "new\n", path: path) == nil)
  }
}
