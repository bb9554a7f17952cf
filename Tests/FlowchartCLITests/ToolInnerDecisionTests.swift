import Testing

@testable import FlowchartCLI

/// `run --decide` on states of the charts a file's subflows and maps run: the tool has no
/// code for them either, and walks them with the decisions forced by name.
struct ToolInnerDecisionTests {
  /// An order whose payment check is a subflow from another file, bound to code.
  private func files() throws -> (TemporaryFiles, main: String) {
    let files = try TemporaryFiles()
    let inner = try files.write(
      "payment.json",
      """
      {"flowchart": [
        {"action": "Charge card", "run": "charge"},
        {"multipleCondition": "Card answer?", "run": "cardAnswer", "final": true}
      ]}
      """)
    let main = try files.write(
      "order.json",
      """
      {"flowchart": [
        {"subflow": "Payment", "chart": "\(inner)",
         "exits": [{"case": "Card answer?", "states": []}]},
        {"map": "Each item", "over": "items", "into": "packed", "states": [
          {"condition": "In stock?", "run": "isInStock", "final": true}
        ]},
        {"action": "Ship", "final": true}
      ]}
      """)
    return (files, main)
  }

  @Test func forcedDecisionsReachTheStatesOfASubflowAndAMap() async throws {
    let (files, main) = try files()
    let outcome = await Tool.run([
      "run", main, "--context", #"{"items": [1, 2]}"#, "--decide", "Card answer?=approved",
      "--decide", "In stock?=yes", "--decide", "In stock?=no",
    ])
    _ = files
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(outcome.output.contains("Path: Payment -> Each item -> Ship\n"), "\(outcome.output)")
  }

  @Test func anInnerStateWithoutADecisionStopsTheRunAndSaysHowToForceIt() async throws {
    let (files, main) = try files()
    let outcome = await Tool.run([
      "run", main, "--context", #"{"items": [1]}"#, "--decide", "Card answer?=approved",
    ])
    _ = files
    #expect(outcome.exitCode == .failure)
    #expect(outcome.errorOutput.contains("--decide 'In stock?=yes'"), "\(outcome.errorOutput)")
  }

  @Test func anInnerConditionForcedToAKeyIsAUsageError() async throws {
    let (files, main) = try files()
    let outcome = await Tool.run(["run", main, "--decide", "In stock?=maybe"])
    _ = files
    #expect(outcome.exitCode == .usageError)
    #expect(
      outcome.errorOutput.hasPrefix(
        "Error: The value 'In stock?=maybe' is invalid for '--decide <state=decision>': condition 'In stock?' ("
      ), "\(outcome.errorOutput)")
  }

  @Test func aNameNoChartHasIsStillAUsageError() async throws {
    let (files, main) = try files()
    let outcome = await Tool.run(["run", main, "--decide", "In stok?=yes"])
    _ = files
    #expect(outcome.exitCode == .usageError)
    #expect(outcome.errorOutput.hasPrefix("Error: No state is named 'In stok?'."))
  }
}
