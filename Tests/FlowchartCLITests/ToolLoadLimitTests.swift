import Foundation
import Testing

@testable import FlowchartCLI

/// What the tool says of inputs that are too deep, too wide or not writable.
struct ToolLoadLimitTests {
  @Test func convertRefusesToWriteXMLItCouldNotReadBack() async throws {
    let files = try TemporaryFiles()
    let path = try files.write(
      "note.json",
      #"{"flowchart": [{"action": "Save", "final": true, "store": [{"path": "no\u0001te", "value": "a\u0001b"}]}]}"#
    )
    let outcome = await Tool.run(["convert", path, "--to", "xml"])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output.isEmpty)
    expectText(
      outcome.errorOutput,
      "\(path): error: The chart cannot be written as XML: the attribute path of <storeValue> of state 'Save' holds U+0001, a control character that XML 1.0 cannot hold, even escaped. Remove the character, or keep the chart in JSON.\n"
    )
  }

  @Test func aValueNestedTooDeepIsNamedBriefly() async throws {
    let deep = String(repeating: "[", count: 100_000)
    let context = await Tool.run(["run", sample("form.json"), "--context", deep])
    #expect(context.exitCode == .usageError)
    let first = context.errorOutput.split(separator: "\n").first.map(String.init) ?? ""
    expectText(
      first,
      "Error: The value '\(String(repeating: "[", count: 60))…' is invalid for '--context <json>': it is not valid JSON: Arrays and objects nest deeper than the limit of 512 levels here (line 1, column 513)."
    )
    let send = await Tool.run(["run", sample("form.json"), "--send", "Approval=" + deep])
    #expect(send.exitCode == .usageError)
    #expect(send.errorOutput.count < 600)
    #expect(send.errorOutput.contains("nest deeper than the limit of 512 levels"))
  }

  @Test func validatePrintsAFilesFirstHundredProblemsThenCountsTheRest() async throws {
    // A leaf that runs code the tool lacks a decision for, included 2^10 times: each of
    // `i0` … `i9` includes the next twice. A mistake in the leaf is 1,024 problems.
    let files = try TemporaryFiles()
    try _ = files.write("i10.json", #"{"flowchart": [{"goTo": "Nowhere"}]}"#)
    for level in 0..<10 {
      let next = "i\(level + 1).json"
      try _ = files.write(
        "i\(level).json", #"{"flowchart": [{"include": "\#(next)"}, {"include": "\#(next)"}]}"#)
    }
    let main = try files.write(
      "main.json", #"{"flowchart": [{"include": "i0.json"}, {"action": "End", "final": true}]}"#)
    let outcome = await Tool.run(["validate", main])
    #expect(outcome.exitCode == .failure)
    let lines = outcome.errorOutput.split(separator: "\n").map(String.init)
    #expect(lines.count == 102)
    #expect(lines.prefix(100).allSatisfy { $0.contains("i10.json:1:16: error: ") })
    expectText(
      lines.suffix(2).joined(separator: "\n"),
      """
      \(main):1:1: note: … and 924 more problems.
      Error: 1 of 1 file has problems.
      """)
  }
}
