import Foundation
import Testing

@testable import FlowchartCLI

/// `--decide State=value`: a misspelled state name or value gets a "did you mean".
struct DecideSuggestionTests {
  static let plan = """
    {"flowchart": [
      {"multipleCondition": "Plan", "run": "plan", "exits": [
        {"case": "basic", "states": [{"action": "Basic", "final": true}]},
        {"case": "premium", "states": [{"action": "Premium", "final": true}]}
      ]}
    ]}
    """

  func firstLine(_ arguments: [String]) async throws -> String {
    let files = try TemporaryFiles()
    let path = try files.write("plan.json", Self.plan)
    let outcome = await Tool.run(["run", path] + arguments)
    #expect(outcome.exitCode == .usageError)
    return String(outcome.errorOutput.split(separator: "\n").first ?? "")
      .replacingOccurrences(of: path, with: "plan.json")
  }

  @Test func aMisspelledStateNameIsSuggested() async throws {
    #expect(
      try await firstLine(["--decide", "Pln=premium"])
        == "Error: No state is named 'Pln'. Use the name of one of the chart's 3 states (did you mean 'Plan'?)."
    )
  }

  @Test func aMisspelledKeyIsSuggested() async throws {
    #expect(
      try await firstLine(["--decide", "Plan=premum"])
        == "Error: The value 'Plan=premum' is invalid for '--decide <state=decision>': multiple condition 'Plan' (plan.json:2:3) can be forced to decide a key of its exits ('basic', 'premium') (did you mean 'premium'?)."
    )
  }

  @Test func aMisspelledDecisionIsSuggested() async throws {
    #expect(
      try await firstLine(["--decide", "Plan=basic", "--decide", "Basic=dnoe"])
        == "Error: The value 'Basic=dnoe' is invalid for '--decide <state=decision>': action 'Basic' (plan.json:3:34) can be forced to decide done (did you mean 'done'?)."
    )
  }

  @Test func aMisspelledYesIsSuggested() async {
    let outcome = await Tool.run(["run", sample("health.json"), "--decide", "Injured?=yse"])
    #expect(outcome.exitCode == .usageError)
    #expect(
      outcome.errorOutput.contains("can be forced to decide yes or no (did you mean 'yes'?)."))
  }
}
