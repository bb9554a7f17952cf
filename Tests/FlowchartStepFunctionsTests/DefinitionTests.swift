import Flowchart
import FlowchartFiles
import FlowchartStepFunctions
import Foundation
import Testing

/// The exported definitions of the Health workflow and of a chart with a dispatch and a map,
/// against the `.asl.json` golden files beside these tests (`FLOWCHART_RECORD=1` rewrites
/// them), and the shape of what the export writes.
struct DefinitionTests {
  private func expectGolden(_ text: String, _ name: String) throws {
    let url = repositoryRoot.appendingPathComponent(
      "Tests/FlowchartStepFunctionsTests/Golden/\(name)")
    if ProcessInfo.processInfo.environment["FLOWCHART_RECORD"] == "1" {
      try text.write(to: url, atomically: true, encoding: .utf8)
      return
    }
    let golden = try String(contentsOf: url, encoding: .utf8)
    #expect(text == golden, "\(name) differs from the export; FLOWCHART_RECORD=1 rewrites it")
  }

  @Test func healthWorkflowMatchesItsGoldenFile() throws {
    let definition = try healthChart().stateMachineDefinition(
      comment: "The Health workflow, exported by Flowchart.")
    try expectGolden(definition.text, "health.asl.json")
  }

  @Test func chartWithDispatchAndMapMatchesItsGoldenFile() throws {
    let definition = try fileChart(".ci/stepfunctions/photo-book.json").stateMachineDefinition()
    try expectGolden(definition.text, "photo-book.asl.json")
  }

  @Test func exportIsDeterministic() throws {
    let chart = try fileChart("Samples/form.json")
    #expect(try chart.stateMachineDefinition().text == chart.stateMachineDefinition().text)
  }

  @Test func conditionIsATaskThenAChoiceOnItsExit() throws {
    let definition = try healthChart().stateMachineDefinition()
    let states = try #require(definition.document[path: "States"])
    #expect(definition.document[path: "StartAt"] == "Willing_to_exercise")
    #expect(states[path: "Willing_to_exercise.Type"] == "Task")
    #expect(states[path: "Willing_to_exercise.Next"] == "Willing_to_exercise.decide")
    guard case .object(let byName) = states else { return }
    let choice = try #require(byName["Willing_to_exercise.decide"])
    #expect(choice[path: "Type"] == "Choice")
    #expect(choice[path: "Choices.0.StringEquals"] == "yes")
    #expect(choice[path: "Choices.0.Next"] == "Lift_weights")
    #expect(choice[path: "Default"] == "Injured")
    #expect(choice[path: "OutputPath"] == "$.context")
    // A final condition ends the execution with its context.
    #expect(byName["Injured"]?[path: "End"] == true)
    #expect(
      definition.stateNames == ["Willing_to_exercise", "Lift_weights", "Do_sit-ups", "Injured"])
  }

  @Test func resourcesComeFromTheTableByStateName() throws {
    let resources = StepFunctionsResources(
      default: .functionPerState("arn:aws:lambda:eu-west-1:1:function:health-{name}"),
      byState: ["Injured?": .function("arn:aws:lambda:eu-west-1:1:function:triage")])
    let definition = try healthChart().stateMachineDefinition(resources: resources)
    #expect(
      definition.document[path: "States.Lift_weights.Resource"]
        == "arn:aws:lambda:eu-west-1:1:function:health-Lift_weights")
    #expect(
      definition.document[path: "States.Injured.Resource"]
        == "arn:aws:lambda:eu-west-1:1:function:triage")
    #expect(definition.document[path: "States.Injured.Parameters.state"] == "Injured?")
    #expect(definition.document[path: "States.Injured.Parameters.stateID"] == 3)
  }

  @Test func resourceTableReadsFunctionsAndQueues() throws {
    let table = try ChartValue(
      jsonText:
        #"{"default": "arn:f:{name}", "Injured?": {"queue": "https://q"}, "Lift weights": "arn:g"}"#
    )
    let resources = try StepFunctionsResources(table: table)
    #expect(resources.default == .functionPerState("arn:f:{name}"))
    #expect(resources.byState["Injured?"] == .queue(url: "https://q"))
    #expect(resources.byState["Lift weights"] == .function("arn:g"))
    #expect(throws: StepFunctionsResources.TableError.self) {
      try StepFunctionsResources(table: ["Injured?": 3])
    }
  }

  @Test func namesAreValidUniqueAndKeepTheOriginalInComments() throws {
    let long = String(repeating: "x", count: 100)
    let chart = try Flowchart<Int> {
      Action("Check: a/b [c] {d} #1 ? *") { _ in }
      Action("Check a b c d 1") { _ in }
      Action("Check: a/b [c] {d} #1 ? * again") { _ in }
      Action(long) { _ in }
      Action("???", isFinal: true) { _ in }
    }
    let definition = try chart.stateMachineDefinition()
    let names = definition.stateNames.compactMap { $0 }
    #expect(
      names == [
        "Check_a_b_c_d_1", "Check_a_b_c_d_1_2", "Check_a_b_c_d_1_again",
        String(repeating: "x", count: 72), "State",
      ])
    #expect(Set(names).count == names.count)
    #expect(names.allSatisfy { (1...80).contains($0.count) })
    #expect(
      definition.document[path: "States.Check_a_b_c_d_1.Comment"]
        == "action 'Check: a/b [c] {d} #1 ? *' (#0)")
  }

  @Test func dispatchIsAParallelThenItsMerge() throws {
    let chart = try Flowchart<[String]> {
      Dispatch("Measure", merge: { context, branch in context += branch }) {
        Branch("Pulse") { Action("Take pulse", isFinal: true) { $0.append("pulse") } }
        Branch("Weight") { Action("Weigh", isFinal: true) { $0.append("weight") } }
      }
      Action("Report", isFinal: true) { _ in }
    }
    let states = try #require(chart.stateMachineDefinition().document[path: "States"])
    guard case .object(let byName) = states else { return }
    let parallel = try #require(byName["Measure"])
    #expect(parallel[path: "Type"] == "Parallel")
    #expect(parallel[path: "ResultPath"] == "$.flowchartBranches")
    #expect(parallel[path: "Next"] == "Measure.merge")
    #expect(parallel[path: "Branches.0.StartAt"] == "Take_pulse")
    #expect(parallel[path: "Branches.1.States.Weigh.End"] == true)
    #expect(byName["Measure.merge"]?[path: "Parameters.MessageBody.step"] == "merge")
    #expect(byName["Measure.merge"]?[path: "Next"] == "Report")
  }

  @Test func modifiersBecomeTimeoutRetryAndCatch() throws {
    let chart = try Flowchart<[String: String]> {
      Action("Upload") { _ in throw NetworkError() }
        .timeout(.seconds(30))
        .retry(
          3,
          backoff: .exponential(initial: .milliseconds(500), multiplier: 2, maximum: .seconds(10))
            .jittered()
        )
        .catch(NetworkError.self, goTo: "Offline")
        .catch(goTo: "Give up")
      Action("Done", isFinal: true) { _ in }
      Action("Offline", isFinal: true) { _ in }
      Action("Give up", isFinal: true) { _ in }
    }
    let definition = try chart.stateMachineDefinition()
    guard case .object(let byName)? = definition.document[path: "States"] else {
      Issue.record("no States")
      return
    }
    let upload = try #require(byName["Upload"])
    #expect(upload[path: "TimeoutSeconds"] == 30)
    // The handler runs the retry's filter on the Swift error and fails as Flowchart.Retry;
    // the untyped filter takes the state's timeout error too.
    #expect(upload[path: "Retry.0.ErrorEquals"] == ["Flowchart.Retry", "States.Timeout"])
    #expect(upload[path: "Retry.0.MaxAttempts"] == 3)
    #expect(upload[path: "Retry.0.IntervalSeconds"] == 1)  // 0.5 s, rounded up
    #expect(upload[path: "Retry.0.BackoffRate"] == 2)
    #expect(upload[path: "Retry.0.MaxDelaySeconds"] == 10)
    #expect(upload[path: "Retry.0.JitterStrategy"] == "FULL")
    guard case .object(let body)? = upload[path: "Parameters.MessageBody"] else {
      Issue.record("no MessageBody")
      return
    }
    #expect(body["retryCount.$"] == "$$.State.RetryCount")
    // A timeout is the one error Step Functions raises: the first route that takes the
    // timeout error (the catch-all, the second) catches it, and a task runs its handler.
    #expect(
      upload[path: "Catch"] == [
        [
          "ErrorEquals": ["States.Timeout"], "ResultPath": "$.flowchartError",
          "Next": "Upload.catch2",
        ]
      ])
    #expect(byName["Upload.catch2"]?[path: "Parameters.MessageBody.route"] == 1)
    #expect(byName["Upload.catch2"]?[path: "Next"] == "Give_up")
    // The handler answers the errors a route catches with the route's exit, `catch1`, …,
    // which the state's Choice follows.
    #expect(upload[path: "Next"] == "Upload.decide")
    let decide = try #require(byName["Upload.decide"])
    #expect(
      decide[path: "Choices"] == [
        ["Variable": "$.exit", "StringEquals": "catch1", "Next": "Offline"],
        ["Variable": "$.exit", "StringEquals": "catch2", "Next": "Give_up"],
      ])
    #expect(decide[path: "Default"] == "Done")
    #expect(definition.text.contains(#""BackoffRate": 2.0"#))
  }

  @Test func finalStateWithCatchRoutesEndsAtASucceed() throws {
    let chart = try Flowchart<[String: String]> {
      Action("Upload", isFinal: true) { _ in throw NetworkError() }
        .catch(NetworkError.self, goTo: "Offline")
      Action("Offline", isFinal: true) { _ in }
    }
    let definition = try chart.stateMachineDefinition()
    guard case .object(let byName)? = definition.document[path: "States"] else {
      Issue.record("no States")
      return
    }
    #expect(byName["Upload"]?[path: "Catch"] == nil)  // no timeout: the handler catches all
    #expect(byName["Upload.decide"]?[path: "Default"] == "Upload.end")
    #expect(byName["Upload.decide"]?[path: "Choices.0.Next"] == "Offline")
    #expect(byName["Upload.end"]?[path: "Type"] == "Succeed")
  }

  @Test func mapIsAnItemsTaskAnInlineMapAndACollect() throws {
    let definition = try fileChart(".ci/stepfunctions/photo-book.json").stateMachineDefinition()
    guard case .object(let byName)? = definition.document[path: "States"] else {
      Issue.record("no States")
      return
    }
    let items = try #require(byName["Resize_each_photo"])
    #expect(items[path: "Parameters.MessageBody.step"] == "items")
    #expect(items[path: "ResultPath"] == "$.flowchartItems")
    #expect(items[path: "Next"] == "Resize_each_photo.each")
    let map = try #require(byName["Resize_each_photo.each"])
    #expect(map[path: "Type"] == "Map")
    #expect(map[path: "ItemsPath"] == "$.flowchartItems.items")
    #expect(map[path: "MaxConcurrency"] == 2)
    #expect(map[path: "ItemProcessor.ProcessorConfig.Mode"] == "INLINE")
    #expect(map[path: "ItemProcessor.StartAt"] == "Resize_each_photo.Wider_than_2000")
    #expect(map[path: "ResultPath"] == "$.flowchartItems")
    #expect(map[path: "Next"] == "Resize_each_photo.collect")
    // The element chart's tasks name their map, so that the handler finds their chart.
    guard case .object(let inner)? = map[path: "ItemProcessor.States"] else {
      Issue.record("no ItemProcessor states")
      return
    }
    #expect(inner["Resize_each_photo.Shrink"]?[path: "Parameters.MessageBody.nested"] == [6])
    #expect(byName["Resize_each_photo.collect"]?[path: "Parameters.MessageBody.step"] == "collect")
    #expect(byName["Resize_each_photo.collect"]?[path: "Next"] == "Shipping")
  }

  @Test func mapThatToleratesFailuresRunsInOneTask() throws {
    let definition = try fileChart("Samples/gallery.json").stateMachineDefinition()
    guard case .object(let byName)? = definition.document[path: "States"] else {
      Issue.record("no States")
      return
    }
    #expect(byName["Resize_each_photo"]?[path: "Parameters.MessageBody.step"] == "state")
    #expect(byName["Resize_each_photo.each"] == nil)
  }

  @Test func subflowIsInlinedAsAnEnterTaskAParallelAndALeaveTask() throws {
    let definition = try fileChart("Samples/review.json").stateMachineDefinition()
    guard case .object(let byName)? = definition.document[path: "States"] else {
      Issue.record("no States")
      return
    }
    let enter = try #require(byName["Check_the_answers"])
    #expect(enter[path: "Comment"] == "subflow 'Check the answers' (#1)")
    #expect(enter[path: "Parameters.MessageBody.step"] == "enter")
    #expect(enter[path: "ResultPath"] == "$.flowchartInner")
    let run = try #require(byName["Check_the_answers.run"])
    #expect(run[path: "Type"] == "Parallel")
    #expect(run[path: "InputPath"] == "$.flowchartInner.inner")
    #expect(run[path: "ResultPath"] == "$.flowchartInner")
    #expect(run[path: "Next"] == "Check_the_answers.leave")
    guard case .object(let inner)? = run[path: "Branches.0.States"] else {
      Issue.record("no inner states")
      return
    }
    // The inner chart's states are named after the subflow, keep their names in comments,
    // and a final state reports itself to the leave task.
    let final = try #require(inner["Check_the_answers.Every_answer_given"])
    #expect(
      final[path: "Comment"]
        == "in subflow 'Check the answers' (#1): condition 'Every answer given?' (#1)")
    #expect(final[path: "Parameters.MessageBody.nested"] == [1])
    #expect(final[path: "ResultSelector.finalState"] == 1)
    #expect(final[path: "End"] == true)
    #expect(byName["Check_the_answers.leave"]?[path: "Parameters.MessageBody.step"] == "leave")
    #expect(byName["Check_the_answers.leave"]?[path: "Next"] == "Check_the_answers.decide")
  }
}
