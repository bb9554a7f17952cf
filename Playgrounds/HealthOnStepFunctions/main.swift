// HealthOnStepFunctions: the Health workflow deployed on AWS Step Functions. One executable
// does both jobs of a deployment, with the one chart of `HealthWorkflow.swift`:
//
//   swift run HealthOnStepFunctions export [<function ARN>]   the definition, for a queue
//                                                             worker or one Lambda function
//   swift run HealthOnStepFunctions handle < payload.json     answers one task
//   swift run HealthOnStepFunctions run < subject.json        the same run, in process
//
// `handle` is the body of a Lambda function or an activity worker: read the task's payload,
// call `StepFunctionsHandler.handle`, answer with its result (`SendTaskSuccess`) or its error
// (`SendTaskFailure`, exit code 1 here). `.ci/stepfunctions.sh` runs every route of the
// workflow on moto's Step Functions with this worker answering the tasks.

import FlowchartStepFunctions
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "Usage: HealthOnStepFunctions export [<function ARN>] | handle | run"

/// Standard input, whole.
func standardInput() -> String {
  String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
}

switch arguments.first {
case "export" where arguments.count <= 2:
  let resources =
    arguments.count == 2
    ? StepFunctionsResources(default: .function(arguments[1])) : .localQueue
  print(try healthDefinition(resources: resources).text, terminator: "")
case "handle" where arguments.count == 1:
  let (answer, succeeded) = await answerTask(standardInput())
  print(answer)
  if !succeeded { exit(1) }
case "run" where arguments.count == 1:
  do {
    print(try await runLocally(standardInput()), terminator: "")
  } catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
  }
case nil:
  // A tour, what `swift run HealthOnStepFunctions` shows: the definition, then the first
  // task of an execution answered as the worker answers it.
  print(try healthDefinition().text)
  let payload = #"""
    {"state": "Willing to exercise?", "stateID": 0, "step": "state",
     "context": {"isWillingToExercise": false, "isInjured": true, "log": []}}
    """#
  print("Task: \(payload)")
  print("Answer: \(await answerTask(payload).answer)")
  print()
  print(usage)
default:
  FileHandle.standardError.write(Data((usage + "\n").utf8))
  exit(64)
}
