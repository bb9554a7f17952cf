import FlowchartFiles
import Foundation
import Testing

@testable import FlowchartCLI

/// The tool on maps, subflows, dispatch options and waits, and `convert` checking before it
/// writes.
struct ToolNewKindsTests {
  @Test func convertRefusesAFileWithProblemsAsValidateDoes() async throws {
    let files = try TemporaryFiles()
    let broken = try files.write("three-mistakes.json", Fixtures.threeMistakes)
    let converted = await Tool.run(["convert", broken, "--to", "xml"])
    let validated = await Tool.run(["validate", broken])
    #expect(converted.exitCode == .failure)
    #expect(converted.exitCode == validated.exitCode)
    #expect(converted.output.isEmpty)
    let lines = converted.errorOutput.split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines.allSatisfy { $0.hasPrefix("\(broken):") && $0.contains(": error: ") })
    #expect(validated.errorOutput.hasPrefix(converted.errorOutput))
  }

  @Test(arguments: ["order", "review", "gallery"])
  func newSamplesConvertAndReadBackAsTheSameTree(sample name: String) async throws {
    let files = try TemporaryFiles()
    let xml = await Tool.run(["convert", sample("\(name).json"), "--to", "xml"])
    #expect(xml.exitCode == .success)
    // The review sample runs a file of the samples' folder, by a path relative to it.
    let written = try files.write(
      "\(name).xml",
      xml.output.replacingOccurrences(
        of: "chart=\"parts/", with: "chart=\"\(sample("parts"))/"))
    let original = await Tool.run(["print", sample("\(name).json")])
    let roundTrip = await Tool.run(["print", written])
    #expect(roundTrip.exitCode == .success, "\(roundTrip.errorOutput)")
    #expect(roundTrip.output == original.output)
  }

  @Test func aMapRunsFromTheCommandLine() async {
    let outcome = await Tool.run([
      "run", sample("gallery.json"), "--context", #"{"photos": [{"width": 4000}, {"width": 10}]}"#,
    ])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(
      outcome.output.contains(
        #"Context: {"photos": [{"width": 4000}, {"width": 10}], "resized": [{"width": 2000}, {"width": 10}], "status": "published"}"#
      ), "\(outcome.output)")
  }

  @Test func aSubflowRunsFromTheCommandLineAndItsOutcomeIsPrinted() async {
    let outcome = await Tool.run([
      "run", sample("review.json"), "--context", #"{"answers": {"name": "Ann"}}"#,
    ])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(
      outcome.output.hasPrefix("Final state: Ask again\nDecision: done\nOutcome: incomplete\n"))
  }

  @Test func aDispatchWithPrerequisitesRunsItsBranchesInOrder() async {
    let outcome = await Tool.run(["run", sample("order.json")])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(
      outcome.output.contains(
        "Path: Receive order -> Prepare order -> Create the project -> Upload the photos -> Email the receipt -> Ship\n"
      ), "\(outcome.output)")
  }

  @Test func aWaitTakesTheValueSent() async throws {
    let files = try TemporaryFiles()
    let chart = try files.write(
      "wait.json",
      #"{"flowchart": [{"wait": "Approval", "storeAt": "approval"}, {"action": "Done", "final": true}]}"#
    )
    let outcome = await Tool.run(["run", chart, "--send", #"Approval={"by": "Ann"}"#])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(outcome.output.contains(#"Context: {"approval": {"by": "Ann"}}"#))
    let wrong = await Tool.run(["run", chart, "--send", "Nobody=1"])
    #expect(wrong.exitCode == .usageError)
    #expect(wrong.errorOutput.contains("No state of the chart is named 'Nobody'"))
    let malformed = await Tool.run(["run", chart, "--send", "Approval={"])
    #expect(malformed.exitCode == .usageError)
    #expect(malformed.errorOutput.contains("'{' is not a JSON value"))
  }
}
