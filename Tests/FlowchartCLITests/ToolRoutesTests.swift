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
          {"decidable": true, "decide": ["Again?=yes", "Again?=no"], "endsInFailure": false, "fail": [], "route": "Count → Again? [yes] → Count → Again? [no] → Stop [done]", "states": ["Count", "Again?", "Count", "Again?", "Stop"]},
          {"decidable": true, "decide": ["Again?=no"], "endsInFailure": false, "fail": [], "route": "Count → Again? [no] → Stop [done]", "states": ["Count", "Again?", "Stop"]}
        ]

        """)
  }

  @Test func routesJSONGivesEachRoutesFailValuesInAttemptOrder() async throws {
    let outcome = await Tool.run(["routes", sample("payment.json"), "--json"])
    #expect(outcome.exitCode == .success)
    let routes = try #require(
      JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [[String: Any]])
    #expect(routes.allSatisfy { $0["decidable"] as? Bool == true })
    let fail = routes.map { "\($0["route"] ?? ""): \($0["fail"] as? [String] ?? ["?"])" }
    #expect(
      fail == [
        "Record order → Card declined? [yes] → Charge card → Ship [done]: []",
        "Record order → Card declined? [yes] → Charge card [fails, caught] → Report failure [done]: [\"Charge card=catch1\"]",
        "Record order → Card declined? [no] → Ship [done]: []",
        "Record order [fails, retried] → Card declined? [yes] → Charge card → Ship [done]: [\"Record order=error\"]",
        "Record order [fails, retried] → Card declined? [yes] → Charge card [fails, caught] → Report failure [done]: [\"Record order=error\", \"Charge card=catch1\"]",
        "Record order [fails, retried] → Card declined? [no] → Ship [done]: [\"Record order=error\"]",
        "Record order [fails 3×, run fails]: [\"Record order=error\", \"Record order=error\", \"Record order=error\"]",
        "Record order [times out 3×, run fails]: [\"Record order=timeout\", \"Record order=timeout\", \"Record order=timeout\"]",
      ])
    #expect(routes.filter { $0["endsInFailure"] as? Bool == true }.count == 2)
  }

  /// A state that fails on a later visit than its first: the visits before take `none`, and
  /// the visits after the last failure are left out.
  @Test func routesJSONGivesNoneToTheVisitsBeforeAStatesFailure() async throws {
    let files = try TemporaryFiles()
    let chart = try files.write(
      "retried-loop.json",
      """
      {"flowchart": [
        {"action": "Fetch", "catch": [{"goTo": "Give up"}]},
        {"condition": "Again?", "run": "again", "yes": [{"goTo": "Fetch"}],
         "no": [{"action": "Stop", "final": true}]},
        {"action": "Give up", "final": true}
      ]}
      """)
    let outcome = await Tool.run(["routes", chart, "--json", "--cycles", "1"])
    let routes = try #require(
      JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [[String: Any]])
    let route = try #require(
      routes.first {
        $0["route"] as? String
          == "Fetch → Again? [yes] → Fetch [fails, caught] → Give up [done]"
      })
    #expect(route["fail"] as? [String] == ["Fetch=none", "Fetch=catch1"])
    #expect(route["decide"] as? [String] == ["Again?=yes"])
    let run = await Tool.run(
      ["run", chart, "--decide", "Again?=yes", "--fail", "Fetch=none", "--fail", "Fetch=catch1"])
    #expect(
      run.output.contains("Path: Fetch -> Again? -> Fetch -> Give up\n"), "\(run.errorOutput)")
  }

  @Test func routesJSONForcesASubflowsExitByItsChartsStatesBoundToCode() async {
    let outcome = await Tool.run(["routes", sample("shop.json"), "--json"])
    #expect(
      outcome.output == """
        [
          {"decidable": true, "decide": ["Paid?=yes"], "endsInFailure": false, "fail": [], "route": "Check out [yes] → Print each photo → Ship [done]", "states": ["Check out", "Print each photo", "Ship"]},
          {"decidable": true, "decide": ["Paid?=no"], "endsInFailure": false, "fail": [], "route": "Check out [no] → Cancel [done]", "states": ["Check out", "Cancel"]}
        ]

        """)
  }

  @Test func routesJSONNamesTheWaitingStatesARouteNeedsAValueFor() async {
    let outcome = await Tool.run(["routes", sample("approval.json"), "--json"])
    #expect(
      outcome.output == """
        [
          {"decidable": true, "decide": [], "endsInFailure": false, "fail": [], "route": "Receive order → Approve → Ship [done]", "sends": ["Approve"], "states": ["Receive order", "Approve", "Ship"]}
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

  /// Every route of payment.json that forces a failure runs down its states with its
  /// `decide` and `fail` values, and ends in failure exactly when the route says so.
  @Test func everyRouteWithFailuresRunsDownItsStates() async throws {
    let listed = await Tool.run(["routes", sample("payment.json"), "--json"])
    let routes = try #require(
      JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
    let failing = routes.filter { ($0["fail"] as? [String])?.isEmpty == false }
    #expect(failing.count == 6)
    // Charge card's own code always fails (a built-in failure), whatever is forced before it:
    // the route on which it succeeds is listed, but no run takes it.
    let runnable = failing.filter {
      !(($0["route"] as? String) ?? "").contains("Charge card → Ship")
    }
    #expect(runnable.count == 5)
    for route in runnable {
      let decide = try #require(route["decide"] as? [String])
      let fail = try #require(route["fail"] as? [String])
      let states = try #require(route["states"] as? [String])
      let outcome = await Tool.run(
        ["run", sample("payment.json")] + decide.flatMap { ["--decide", $0] }
          + fail.flatMap { ["--fail", $0] })
      let text = outcome.output + outcome.errorOutput
      #expect(
        text.contains("Path: \(states.joined(separator: " -> "))\n"),
        "\(route["route"] ?? ""): \(text)")
      #expect(
        (outcome.exitCode == .failure) == (route["endsInFailure"] as? Bool == true),
        "\(route["route"] ?? ""): \(text)")
    }
  }

  @Test func runFailsOnlyTheAttemptsNamedThenRunsNormally() async {
    // Record order's retry takes the forced failure; its second attempt runs its code.
    let retried = await Tool.run(["run", sample("payment.json"), "--fail", "Record order"])
    #expect(retried.exitCode == .success)
    #expect(retried.output.contains(#"Context: {"status": "shipped"}"#), "\(retried.output)")
    let timedOut = await Tool.run(
      ["run", sample("payment.json")]
        + Array(repeating: ["--fail", "Record order=timeout"], count: 3).flatMap { $0 })
    #expect(timedOut.exitCode == .failure)
    #expect(timedOut.errorOutput.contains("did not finish within its timeout of 5s"))
    let help = await Tool.run(["help", "run"]).output.split(whereSeparator: \.isWhitespace)
      .joined(separator: " ")
    #expect(help.contains("--fail <state[=how]>"))
    #expect(help.contains("each attempt of the state (a retry too) takes the next value"))
  }

  /// An action's attempts after its `--fail` values run its code, at every later visit.
  @Test func anActionRunsNormallyAtEveryVisitAfterItsFailures() async throws {
    let files = try TemporaryFiles()
    let chart = try files.write(
      "retried-count.json",
      """
      {"flowchart": [
        {"action": "Count", "store": [{"path": "counted", "value": true}],
         "retry": {"count": 1, "backoff": "immediate"}},
        {"condition": "Again?", "run": "again", "yes": [{"goTo": "Count"}],
         "no": [{"action": "Stop", "final": true}]}
      ]}
      """)
    let outcome = await Tool.run([
      "run", chart, "--fail", "Count", "--decide", "Again?=yes", "--decide", "Again?=yes",
      "--decide", "Again?=no",
    ])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(
      outcome.output.contains(
        "Path: Count -> Again? -> Count -> Again? -> Count -> Again? -> Stop\n"))
    #expect(outcome.output.contains(#"Context: {"counted": true}"#))
  }

  @Test(arguments: [
    (
      "Ship=timeout",
      "Error: The value 'Ship=timeout' is invalid for '--fail <state[=how]>': action 'Ship' (PATH:11:5) has no timeout to run out. Give it a \"timeout\" in the chart, or fail it with --fail 'Ship'.\n"
    ),
    (
      "Charge card=catch2",
      "Error: The value 'Charge card=catch2' is invalid for '--fail <state[=how]>': action 'Charge card' (PATH:8:9) has 1 catch route. Name one of them (catch1), or write --fail 'Charge card'.\n"
    ),
    (
      "Charge card=catch0",
      "Error: The value 'Charge card=catch0' is invalid for '--fail <state[=how]>': catch routes are counted from 1, as in --fail 'Charge card=catch1'.\n"
    ),
    (
      "Card declined?=none",
      "Error: The value 'Card declined?=none' is invalid for '--fail <state[=how]>': condition 'Card declined?' (PATH:4:5) decides in the attempts that do not fail, and has no --decide value left for this one. Add a --decide 'Card declined?=…' for each of them, in order.\n"
    ),
    (
      "=error",
      "Error: The value '=error' is invalid for '--fail <state[=how]>': write the state's name, then optionally '=' and error, catchN, timeout or none, as in --fail 'Charge card' or --fail 'Charge card=timeout'.\n"
    ),
    (
      "Recrd order",
      "Error: The value 'Recrd order' is invalid for '--fail <state[=how]>': "
    ),
  ])
  func runReportsABadFailValue(value: String, message: String) async {
    // The messages name the chart file as given: PATH stands for it.
    let path = sample("payment.json")
    let outcome = await Tool.run(["run", path, "--fail", value])
    #expect(outcome.exitCode == .usageError)
    #expect(
      outcome.errorOutput.hasPrefix(message.replacingOccurrences(of: "PATH", with: path)),
      "\(outcome.errorOutput)")
    #expect(outcome.errorOutput.contains("Usage: flowchart run <file>"))
  }

  @Test func handleAnswersAForcedFailureAsTheDeployedHandlerWould() async {
    let charge =
      #"{"state": "Charge card", "stateID": 2, "step": "state", "context": {"status": "received"}}"#
    let caught = await Tool.run([
      "handle", sample("payment.json"), "--payload", charge, "--fail", "Charge card=catch1",
    ])
    #expect(caught.exitCode == .success)
    #expect(caught.output.hasSuffix(#""status": "received"}, "exit": "catch1"}"# + "\n"))
    let record =
      #"{"state": "Record order", "stateID": 0, "step": "state", "retryCount": 0, "context": {}}"#
    let retried = await Tool.run([
      "handle", sample("payment.json"), "--payload", record, "--fail", "Record order",
    ])
    #expect(retried.exitCode == .failure)
    #expect(retried.output.contains(#""error": "Flowchart.Retry""#), "\(retried.output)")
    // A timeout is Step Functions' own error, which the definition's Retry and Catch take.
    let timedOut = await Tool.run([
      "handle", sample("payment.json"), "--payload", record, "--fail", "Record order=timeout",
    ])
    #expect(timedOut.exitCode == .failure)
    #expect(
      timedOut.output
        == #"{"cause": "'Record order' did not finish within its timeout (forced by --fail)", "error": "States.Timeout"}"#
        + "\n")
    // Another state's task runs normally.
    let other = await Tool.run([
      "handle", sample("payment.json"), "--payload", charge, "--fail", "Record order=timeout",
    ])
    #expect(other.exitCode == .success)
    #expect(
      other.output.hasSuffix(
        #"{"context": {"failure": "The card was declined", "status": "received"}, "exit": "catch1"}"#
          + "\n"), "\(other.output)")
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
