import Foundation
import Testing

@testable import FlowchartCLI

/// `flowchart validate` on a chart with problems of format and `include` statements reports
/// every problem in one pass, the names across the included files among them.
struct ToolValidateIncludeTests {
  @Test func validateChecksNamesAcrossIncludedFilesWithProblemsOfFormat() async throws {
    let files = try TemporaryFiles()
    let main = try files.write(
      "main.json",
      """
      {"flowchart": [
        {"action": "Start", "store": [{"path": "status", "vlaue": "new"}]},
        {"include": "check.xml"},
        {"condition": "Big?", "test": {"greater": {"path": "amount", "value": 100}},
         "yes": [{"goTo": "Chek"}], "no": []},
        {"action": "Approve", "final": true}
      ]}
      """)
    _ = try files.write(
      "check.xml",
      """
      <flowchart>
        <action name="Check"/>
        <goTo state="Aprove"/>
      </flowchart>
      """)
    let outcome = await Tool.run(["validate", main])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output.isEmpty)
    expectText(
      outcome.errorOutput.replacingOccurrences(of: files.directory + "/", with: ""),
      """
      check.xml:3:3: error: <goTo> 'Aprove' refers to no state. Declare a state named 'Aprove', or use one of the declared names (did you mean 'Approve'?).
      main.json:2:33: error: A store needs both "path" and "value".
      main.json:2:52: error: Unknown key "vlaue" in a store: its keys are "path" and "value" (did you mean "value"?).
      main.json:5:12: error: GoTo 'Chek' refers to no state. Declare a state named 'Chek', or use one of the declared names (did you mean 'Check'?).
      Error: 1 of 1 file has problems.

      """)
  }

  @Test func validateSaysNamesWereNotCheckedWhenAnIncludeCannotBeRead() async throws {
    let files = try TemporaryFiles()
    let main = try files.write(
      "main.json",
      """
      {"flowchart": [
        {"action": "Start", "store": [{"path": "status", "vlaue": "new"}]},
        {"include": "missing.xml"},
        {"goTo": "Chek"}
      ]}
      """)
    let outcome = await Tool.run(["validate", main])
    #expect(outcome.exitCode == .failure)
    expectText(
      outcome.errorOutput.replacingOccurrences(of: files.directory + "/", with: ""),
      """
      main.json:2:33: error: A store needs both "path" and "value".
      main.json:2:52: error: Unknown key "vlaue" in a store: its keys are "path" and "value" (did you mean "value"?).
      main.json:3:3: error: The file included here cannot be read: 'missing.xml' cannot be read: there is no such file. Check the path. Names are not checked while an included file is unread: fix this to see any misspelled name.
      Error: 1 of 1 file has problems.

      """)
  }
}
