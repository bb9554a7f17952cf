import Flowchart
import FlowchartFiles
import FlowchartStepFunctions
import FlowchartTesting
import Foundation
import Testing

@testable import HealthOnStepFunctions

/// The worker of `Playgrounds/HealthOnStepFunctions`: the Health workflow declared in Swift,
/// exported and answered by one executable, as `.ci/stepfunctions.sh` runs it on moto.
struct HealthOnStepFunctionsTests {
  @Test func theWorkersDefinitionIsTheGoldenHealthDefinition() throws {
    let golden = try String(
      contentsOf: repositoryRoot.appendingPathComponent(
        "Tests/FlowchartStepFunctionsTests/Golden/health.asl.json"), encoding: .utf8)
    #expect(try healthDefinition().text == golden)
  }

  /// The subjects cases.json runs on moto take every route of the Swift chart: its states
  /// and its final decision (the two routes through `Injured?` differ only by it).
  @Test func motoSubjectsTakeEveryRoute() async throws {
    let url = repositoryRoot.appendingPathComponent(".ci/stepfunctions/cases.json")
    let cases = try ChartValue(jsonText: String(contentsOf: url, encoding: .utf8))
    guard
      case .array(let subjects)? = cases[path: "swift"]?[
        path: "Playgrounds/HealthOnStepFunctions"]
    else {
      Issue.record("cases.json has no subjects for Playgrounds/HealthOnStepFunctions")
      return
    }
    let workflow = try HealthOnStepFunctions.makeHealthWorkflow()
    var taken: [(names: [String], decision: Decision)] = []
    for subject in subjects {
      let result = try await workflow.run(
        with: try ContextCoding<HealthOnStepFunctions.Subject>.codable.decode(subject))
      taken.append((result.pathNames, result.decision))
    }
    let routes = workflow.routes()
    #expect(routes.count == 3)
    let untaken = routes.filter { route in
      !taken.contains { $0.names == route.stateNames && $0.decision == route.last.decision }
    }
    #expect(untaken.map(\.description) == [])
  }

  @Test func theWorkerAnswersATask() async {
    let (answer, succeeded) = await answerTask(
      #"{"state": "Injured?", "stateID": 3, "context": {"isWillingToExercise": false, "isInjured": true, "log": []}}"#
    )
    #expect(succeeded)
    #expect(
      answer
        == #"{"context": {"isInjured": true, "isWillingToExercise": false, "log": []}, "decision": "yes", "exit": "end"}"#
    )
  }

  @Test func theWorkerAnswersABadPayloadWithAFailure() async {
    let (answer, succeeded) = await answerTask(#"{"state": "Nobody", "context": {}}"#)
    #expect(!succeeded)
    #expect(
      answer
        == #"{"cause": "The task's payload names state 'Nobody', which is not one state of this chart.", "error": "Flowchart.BadPayload"}"#
    )
  }

  @Test func theWorkersOwnRunIsPrintedAsFlowchartRunPrintsOne() async throws {
    let text = try await runLocally(
      #"{"isWillingToExercise": true, "isInjured": false, "log": []}"#)
    #expect(
      text == """
        Final state: Do sit-ups
        Decision: done
        Outcome: Healthy
        Path: Willing to exercise? -> Lift weights -> Do sit-ups
        Context: {"isInjured": false, "isWillingToExercise": true, "log": ["lifted weights", "did sit-ups"]}

        """)
  }
}
