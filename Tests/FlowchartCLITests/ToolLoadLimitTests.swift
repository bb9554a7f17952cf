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
}
