import Foundation
import Testing

@testable import FlowchartCLI

/// `flowchart export --asl` and `flowchart handle`.
struct ToolStepFunctionsTests {
  @Test func exportWritesTheDefinitionOfASample() async throws {
    let outcome = await Tool.run(["export", sample("payment.json"), "--asl"])
    #expect(outcome.exitCode == .success)
    #expect(outcome.output.hasPrefix("{\n  \"Comment\": \"Exported by Flowchart"))
    #expect(outcome.output.contains(#""StartAt": "Record_order""#))
    // The handler answers a caught failure with the route's exit, which the Choice follows.
    #expect(outcome.output.contains(#""StringEquals": "catch1""#))
  }

  @Test func exportReportsWhatASLCannotSayWithItsLocation() async {
    let outcome = await Tool.run(["export", sample("order.json"), "--asl"])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output.isEmpty)
    let lines = outcome.errorOutput.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(
      lines.first?.hasSuffix(
        "order.json:4:5: error: Dispatch 'Prepare order' joins its branches with a policy other than `.all`, and a Step Functions Parallel state fails as soon as one branch fails and never stops early: join with `.all`, or catch each branch's failures inside the branch."
      ) == true)
  }

  @Test func exportReadsTheResourceTable() async throws {
    let table = FileManager.default.temporaryDirectory.appendingPathComponent(
      "flowchart-resources-\(UUID().uuidString).json")
    try #"{"default": "arn:aws:lambda:eu-west-1:1:function:pay-{name}"}"#.write(
      to: table, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: table) }
    let outcome = await Tool.run([
      "export", sample("payment.json"), "--asl", "--resources", table.path,
    ])
    #expect(outcome.exitCode == .success)
    #expect(outcome.output.contains(#""Resource": "arn:aws:lambda:eu-west-1:1:function:pay-Ship""#))
  }

  @Test func exportWithoutAslIsAUsageError() async {
    let outcome = await Tool.run(["export", sample("payment.json")])
    #expect(outcome.exitCode == .usageError)
  }

  @Test func handleRunsOneStateOfADataOnlyChart() async {
    let outcome = await Tool.run([
      "handle", sample("payment.json"), "--payload",
      #"{"state": "Card declined?", "stateID": 1, "step": "state", "context": {"card": {"declined": true}}}"#,
    ])
    #expect(outcome.exitCode == .success)
    #expect(outcome.output == #"{"context": {"card": {"declined": true}}, "exit": "yes"}"# + "\n")
  }

  @Test func handleAnswersACaughtFailureWithTheRoutesExit() async {
    let outcome = await Tool.run([
      "handle", sample("payment.json"), "--payload",
      #"{"state": "Charge card", "stateID": 2, "context": {}}"#,
    ])
    #expect(outcome.exitCode == .success)
    #expect(
      outcome.output == #"{"context": {"failure": "The card was declined"}, "exit": "catch1"}"#
        + "\n")
  }

  @Test func handleAnswersAFailureWithItsErrorAndCause() async throws {
    let chart = FileManager.default.temporaryDirectory.appendingPathComponent(
      "flowchart-fails-\(UUID().uuidString).json")
    try
      #"{"flowchart": [{"action": "Charge card", "final": true, "fail": "The card was declined"}]}"#
      .write(to: chart, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: chart) }
    let outcome = await Tool.run([
      "handle", chart.path, "--payload",
      #"{"state": "Charge card", "stateID": 0, "context": {}}"#,
    ])
    #expect(outcome.exitCode == .failure)
    #expect(
      outcome.output == #"{"cause": "The card was declined", "error": "ChartFailure"}"# + "\n")
  }
}
