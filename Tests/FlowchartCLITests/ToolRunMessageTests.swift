import Foundation
import Testing

@testable import FlowchartCLI

/// What `flowchart run` says when a run stops at a state the command line cannot go past on
/// its own: whole sentences, with the tool's own advice.
struct ToolRunMessageTests {
  @Test func aWaitWithoutSendPointsToSend() async throws {
    let files = try TemporaryFiles()
    let chart = try files.write(
      "wait.json",
      """
      {"flowchart": [
        {"wait": "Approval", "storeAt": "approval"},
        {"action": "Done", "final": true}
      ]}
      """)
    let outcome = await Tool.run(["run", chart])
    #expect(outcome.exitCode == .failure)
    expectText(
      outcome.errorOutput.replacingOccurrences(of: files.directory + "/", with: ""),
      """
      Error: The run stopped at waiting state 'Approval' (wait.json:2:3): it waits for a value \
      sent from outside: give it one with --send 'Approval=<json>', as in --send 'Approval=true'.
      Path: Approval

      """)
  }

  @Test func aConditionWithoutCodeSaysHowToForceItInASentence() async throws {
    let path = sample("health.json")
    let outcome = await Tool.run(["run", path])
    #expect(outcome.exitCode == .failure)
    expectText(
      outcome.errorOutput,
      """
      Error: The run stopped at condition 'Willing to exercise?' (\(path):3:5): the command \
      line has no code for 'isWillingToExercise', so force the decision of condition 'Willing \
      to exercise?' with --decide 'Willing to exercise?=yes'.
      Path: Willing to exercise?

      """)
  }
}
