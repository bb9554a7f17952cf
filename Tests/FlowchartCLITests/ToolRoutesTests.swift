import Foundation
import Testing

@testable import FlowchartCLI

/// `flowchart routes`, `run --decide` once per visit of a state in a cycle, and
/// `handle --decide`: what `.ci/stepfunctions.sh` drives every route of a chart with.
struct ToolRoutesTests {
  /// A loop whose exit is a condition bound to code: `Again?` decides once per turn.
  private static let loop = """
    {"flowchart": [
      {"action": "Count", "store": [{"path": "counted", "value": true}]},
      {"condition": "Again?", "run": "again",
       "yes": [{"goTo": "Count"}],
       "no": [{"action": "Stop", "final": true}]}
    ]}
    """

  @Test func routesListsEveryRouteOfASample() async {
    let outcome = await Tool.run(["routes", sample("health.json")])
    #expect(outcome.exitCode == .success)
    #expect(outcome.errorOutput.isEmpty)
    #expect(
      outcome.output == """
        Willing to exercise? [yes] → Lift weights → Do sit-ups [done]
        Willing to exercise? [no] → Injured? [yes]
        Willing to exercise? [no] → Injured? [no]

        """)
  }

  @Test func routesJSONGivesEachRoutesDecideValuesInVisitOrder() async throws {
    let files = try TemporaryFiles()
    let chart = try files.write("loop.json", Self.loop)
    let outcome = await Tool.run(["routes", chart, "--json", "--cycles", "1"])
    #expect(outcome.exitCode == .success)
    #expect(
      outcome.output == """
        [
          {"decidable": true, "decide": ["Again?=yes", "Again?=no"], "endsInFailure": false, "route": "Count → Again? [yes] → Count → Again? [no] → Stop [done]", "states": ["Count", "Again?", "Count", "Again?", "Stop"]},
          {"decidable": true, "decide": ["Again?=no"], "endsInFailure": false, "route": "Count → Again? [no] → Stop [done]", "states": ["Count", "Again?", "Stop"]}
        ]

        """)
  }

  @Test func routesJSONSaysWhyDecisionsCannotDriveARoute() async throws {
    let outcome = await Tool.run(["routes", sample("payment.json"), "--json"])
    #expect(outcome.exitCode == .success)
    let routes = try #require(
      JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [[String: Any]])
    let undecidable = routes.filter { $0["decidable"] as? Bool == false }
    #expect(undecidable.count == 6)
    #expect(
      undecidable.first?["why"] as? String
        == "'Charge card' fails, caught: --decide forces decisions, not failures")
    #expect(routes.filter { $0["endsInFailure"] as? Bool == true }.count == 2)
  }

  @Test func routesJSONForcesASubflowsExitByItsChartsStatesBoundToCode() async {
    let outcome = await Tool.run(["routes", sample("shop.json"), "--json"])
    #expect(
      outcome.output == """
        [
          {"decidable": true, "decide": ["Paid?=yes"], "endsInFailure": false, "route": "Check out [yes] → Print each photo → Ship [done]", "states": ["Check out", "Print each photo", "Ship"]},
          {"decidable": true, "decide": ["Paid?=no"], "endsInFailure": false, "route": "Check out [no] → Cancel [done]", "states": ["Check out", "Cancel"]}
        ]

        """)
  }

  @Test func routesJSONNamesTheWaitingStatesARouteNeedsAValueFor() async {
    let outcome = await Tool.run(["routes", sample("approval.json"), "--json"])
    #expect(
      outcome.output == """
        [
          {"decidable": true, "decide": [], "endsInFailure": false, "route": "Receive order → Approve → Ship [done]", "sends": ["Approve"], "states": ["Receive order", "Approve", "Ship"]}
        ]

        """)
    // A subflow whose chart decides from data cannot be forced by name.
    let review = await Tool.run(["routes", sample("review.json"), "--json"])
    #expect(
      review.output.contains(
        #""why": "subflow 'Check the answers' takes its yes exit only by decisions of its chart that --decide cannot force""#
      ))
  }

  @Test func routesRefusesANegativeCycleCount() async {
    let outcome = await Tool.run(["routes", sample("health.json"), "--cycles", "-1"])
    #expect(outcome.exitCode == .usageError)
    #expect(
      outcome.errorOutput.hasPrefix(
        "Error: The value '-1' is invalid for '--cycles <n>': give how many times a route may come back to a state, a whole number from 0, as in --cycles 1.\n"
      ))
    #expect(outcome.errorOutput.contains("Usage: flowchart routes <file>"))
  }

  @Test func runForcesADifferentDecisionOnEachVisitOfACycle() async throws {
    let files = try TemporaryFiles()
    let chart = try files.write("loop.json", Self.loop)
    let outcome = await Tool.run([
      "run", chart, "--decide", "Again?=yes", "--decide", "Again?=yes", "--decide", "Again?=no",
    ])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(
      outcome.output.contains(
        "Path: Count -> Again? -> Count -> Again? -> Count -> Again? -> Stop\n"))
    let help = await Tool.run(["help", "run"]).output.split(whereSeparator: \.isWhitespace)
      .joined(separator: " ")
    #expect(help.contains("each visit takes the next, in order"))
  }

  /// Every route `routes --json` says decisions can drive takes its states when its
  /// `decide` values are given to `run` (shop.json's subflow by its chart's `Paid?`).
  @Test(arguments: ["health.json", "first-launch.json", "shop.json", "loop"])
  func everyDecidableRouteRunsDownItsStates(chart name: String) async throws {
    let files = try TemporaryFiles()
    let chart = name == "loop" ? try files.write("loop.json", Self.loop) : sample(name)
    let listed = await Tool.run(["routes", chart, "--json", "--cycles", "1"])
    let routes = try #require(
      JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
    #expect(!routes.isEmpty)
    for route in routes where route["decidable"] as? Bool == true {
      let decide = try #require(route["decide"] as? [String])
      let states = try #require(route["states"] as? [String])
      // The photos are for shop.json's map; the other charts do not read them.
      let outcome = await Tool.run(
        ["run", chart, "--context", #"{"photos": ["cover.jpg"]}"#]
          + decide.flatMap { ["--decide", $0] })
      #expect(
        outcome.output.contains("Path: \(states.joined(separator: " -> "))\n"),
        "\(route["route"] ?? ""): \(outcome.output)\(outcome.errorOutput)")
    }
  }

  @Test func handleForcesTheDecisionOfAConditionBoundToCode() async {
    let payload =
      #"{"state": "Willing to exercise?", "stateID": 0, "step": "state", "context": {}}"#
    let forced = await Tool.run([
      "handle", sample("health.json"), "--payload", payload, "--decide",
      "Willing to exercise?=no",
    ])
    #expect(forced.exitCode == .success)
    #expect(forced.output == #"{"context": {}, "exit": "no"}"# + "\n")
    let unforced = await Tool.run(["handle", sample("health.json"), "--payload", payload])
    #expect(unforced.exitCode == .failure)
    #expect(unforced.output.hasPrefix(#"{"cause": "#))
  }

  @Test func handleReportsADecisionForNoStateAsAUsageError() async {
    let outcome = await Tool.run([
      "handle", sample("health.json"), "--payload", "{}", "--decide", "Wiling to exercise?=no",
    ])
    #expect(outcome.exitCode == .usageError)
    #expect(outcome.errorOutput.contains("'Willing to exercise?'"), "\(outcome.errorOutput)")
    #expect(outcome.errorOutput.contains("Usage: flowchart handle <file>"))
  }
}
