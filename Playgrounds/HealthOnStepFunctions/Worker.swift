// What the worker does for each of its commands, apart from reading and writing: testable, and
// the shape of a Lambda function's or an activity worker's body.

import Flowchart
import FlowchartFiles
import FlowchartStepFunctions

/// The Health workflow's definition: every task sends its payload to `resources`, by default
/// the callback pattern's queue named `flowchart` (what `.ci/stepfunctions.sh` runs on moto).
func healthDefinition(
  resources: StepFunctionsResources = .localQueue
) throws -> StateMachineDefinition {
  try makeHealthWorkflow().stateMachineDefinition(
    resources: resources, comment: "The Health workflow, exported by Flowchart.")
}

/// Answers one task: the payload's JSON text in, the answer's JSON text out, and whether the
/// task succeeded (answer it with `SendTaskSuccess`) or failed (`SendTaskFailure`, with the
/// answer's `error` and `cause`).
func answerTask(_ payloadText: String) async -> (answer: String, succeeded: Bool) {
  do {
    let payload = try ChartValue(jsonText: payloadText)
    let handler = StepFunctionsHandler(chart: try makeHealthWorkflow(), coding: .codable)
    return (try await handler.handle(payload).jsonText, true)
  } catch let error as StepFunctionsTaskError {
    return (failure(error.error, error.cause), false)
  } catch {
    return (failure("Flowchart.BadPayload", "The task's payload is not JSON: \(error)"), false)
  }
}

/// The answer of a failed task.
private func failure(_ error: String, _ cause: String) -> String {
  ChartValue.object(["error": .string(error), "cause": .string(cause)]).jsonText
}

/// The workflow run in process on a subject given as JSON, printed as `flowchart run` prints
/// a run: what an execution on Step Functions must match.
func runLocally(_ contextText: String) async throws -> String {
  let coding = ContextCoding<Subject>.codable
  let subject = try coding.decode(try ChartValue(jsonText: contextText))
  let result = try await makeHealthWorkflow().run(with: subject)
  return """
    Final state: \(result.finalStateName)
    Decision: \(result.decision)
    Outcome: \(result.outcome(as: Verdict.self)?.rawValue ?? "none")
    Path: \(result.pathNames.joined(separator: " -> "))
    Context: \(try coding.encode(result.context).jsonText)

    """
}
