import FlowchartFiles
import Foundation
import Testing

@testable import FlowchartCLI

/// The tool on charts whose states have timeouts, retries and catch routes.
struct ToolModifierTests {
  @Test func aDataOnlyChartWhoseActionFailsIsCaughtFromTheCommandLine() async {
    let outcome = await Tool.run([
      "run", sample("payment.json"), "--context", #"{"card": {"declined": true}}"#,
    ])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    expectText(
      outcome.output,
      """
      Final state: Report failure
      Decision: done
      Path: Record order -> Card declined? -> Charge card -> Report failure
      Context: {"card": {"declined": true}, "failure": "The card was declined", "status": "failed"}

      """)
  }

  @Test func theSameChartShipsWhenNothingFails() async {
    let outcome = await Tool.run([
      "run", sample("payment.xml"), "--context", #"{"card": {"declined": false}}"#,
    ])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(outcome.output.hasPrefix("Final state: Ship\n"), "\(outcome.output)")
  }

  @Test func anUncaughtFailureFailsTheRunWithItsMessage() async throws {
    let files = try TemporaryFiles()
    let chart = try files.write(
      "fails.json",
      #"{"flowchart": [{"action": "Check", "fail": "Nothing to check"}, {"action": "End", "final": true}]}"#
    )
    let outcome = await Tool.run(["run", chart, "--context", "{}"])
    #expect(outcome.exitCode != .success)
    #expect(outcome.errorOutput.contains("Nothing to check"), "\(outcome.errorOutput)")
  }

  @Test func thePaymentSampleConvertsAndReadsBackAsTheSameTree() async throws {
    let files = try TemporaryFiles()
    let xml = await Tool.run(["convert", sample("payment.json"), "--to", "xml"])
    #expect(xml.exitCode == .success)
    let written = try files.write("payment.xml", xml.output)
    let original = await Tool.run(["print", sample("payment.json")])
    let roundTrip = await Tool.run(["print", written])
    #expect(roundTrip.output == original.output)
    #expect(original.output.contains("retry"), "\(original.output)")
  }
}
