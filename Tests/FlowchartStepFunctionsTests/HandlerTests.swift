import Flowchart
import FlowchartFiles
import FlowchartStepFunctions
import Testing

/// The entry point a task calls: one state of the chart on the execution's document.
struct HandlerTests {
  private let health = StepFunctionsHandler(chart: try! healthChart(), coding: .codable)

  private func payload(_ state: String, _ id: Int, _ context: ChartValue, step: String = "state")
    -> ChartValue
  {
    [
      "state": .string(state), "stateID": .number(Double(id)), "step": .string(step),
      "context": context,
    ]
  }

  @Test func conditionReturnsItsContextAndExit() async throws {
    let answer = try await health.handle(
      payload(
        "Willing to exercise?", 0, ["isWillingToExercise": true, "isInjured": false, "log": []]))
    #expect(answer[path: "exit"] == "yes")
    #expect(answer[path: "context.isWillingToExercise"] == true)
  }

  @Test func actionRunsItsCodeOnTheDocument() async throws {
    let answer = try await health.handle(
      payload("Lift weights", 1, ["isWillingToExercise": true, "isInjured": false, "log": []]))
    #expect(
      answer == [
        "context": ["isWillingToExercise": true, "isInjured": false, "log": ["lifted weights"]],
        "exit": "next",
      ])
  }

  @Test func finalStateEndsWithItsDecision() async throws {
    let answer = try await health.handle(
      payload("Injured?", 3, ["isWillingToExercise": false, "isInjured": true, "log": []]))
    #expect(answer[path: "exit"] == "end")
    #expect(answer[path: "decision"] == "yes")
  }

  @Test func thrownErrorIsNamedByItsType() async throws {
    let chart = try Flowchart<[String: String]> {
      Action("Upload", isFinal: true) { _ in throw NetworkError() }
    }
    let handler = StepFunctionsHandler(chart: chart, coding: .codable)
    await #expect(throws: StepFunctionsTaskError.self) {
      try await handler.handle(payload("Upload", 0, [:]))
    }
    do {
      _ = try await handler.handle(payload("Upload", 0, [:]))
    } catch {
      #expect(error.error == "NetworkError")
      #expect(error.cause == "the network is down")
    }
  }

  /// The chart of the lowering tests: a typed retry with an `if:` closure, and a typed
  /// catch route whose handler reads the Swift error.
  private func uploadChart() throws -> Flowchart<[String: String]> {
    try Flowchart<[String: String]> {
      Action("Upload") { context in
        let status = Int(context["status"] ?? "") ?? 0
        if status == 0 { throw NetworkError() }
        throw UploadError(status: status)
      }
      .retry(2, on: UploadError.self, if: { $0.status >= 500 })
      .catch(NetworkError.self, goTo: "Offline") { context, error in
        context["caught"] = "\(error)"
      }
      .catch(goTo: "Give up")
      Action("Done", isFinal: true) { _ in }
      Action("Offline", isFinal: true) { _ in }
      Action("Give up", isFinal: true) { _ in }
    }
  }

  private func uploadAnswer(status: Int, retryCount: Int) async throws(StepFunctionsTaskError)
    -> ChartValue
  {
    let handler = StepFunctionsHandler(chart: try! uploadChart(), coding: .codable)
    var request = payload("Upload", 0, ["status": .string("\(status)")])
    request[path: "retryCount"] = .number(Double(retryCount))
    return try await handler.handle(request)
  }

  @Test func retryFilterClosureDecidesOnTheSwiftError() async throws {
    // 503 passes the `if:` closure: retried while attempts are left.
    let retried = await #expect(throws: StepFunctionsTaskError.self) {
      try await uploadAnswer(status: 503, retryCount: 1)
    }
    #expect(retried?.error == "Flowchart.Retry")
    // 400 is an UploadError the closure declines: not retried, caught by the catch-all.
    let caught = try await uploadAnswer(status: 400, retryCount: 0)
    #expect(caught == ["context": ["status": "400"], "exit": "catch2"])
    // Retries spent: the catch routes take it.
    let spent = try await uploadAnswer(status: 503, retryCount: 2)
    #expect(spent == ["context": ["status": "503"], "exit": "catch2"])
  }

  @Test func typedCatchRunsItsHandlerOnTheSwiftError() async throws {
    let answer = try await uploadAnswer(status: 0, retryCount: 0)
    #expect(
      answer == ["context": ["status": "0", "caught": "the network is down"], "exit": "catch1"])
  }

  @Test func catchOnATimeoutGetsTheStatesTimeoutError() async throws {
    let chart = try Flowchart<[String: String]> {
      Action("Fetch") { _ in }
        .timeout(.seconds(5))
        .catch(StateTimeoutError.self, goTo: "Cached") { context, error in
          context["why"] = "\(error)"
        }
      Action("Done", isFinal: true) { _ in }
      Action("Cached", isFinal: true) { _ in }
    }
    let handler = StepFunctionsHandler(chart: chart, coding: .codable)
    var request = payload(
      "Fetch", 0,
      ["flowchartError": ["Error": "States.Timeout", "Cause": "timed out"]], step: "catch")
    request[path: "route"] = 0
    let answer = try await handler.handle(request)
    #expect(answer == ["context": ["why": "'Fetch' did not finish within 5s"], "exit": "next"])
  }

  /// A map over `Codable` elements: the items, one element state, and the collect, as the
  /// inline `Map` asks for them.
  @Test func inlineMapStepsRunTheElementsItsChartAndTheCollect() async throws {
    let line = try Flowchart<Subject> {
      Action("Exercise", isFinal: true) { $0.log.append("exercised") }
    }
    let chart = try Flowchart<Team> {
      Map("Each member", isFinal: true, over: { $0.members }, running: line) {
        $0.done = $1.outputs
      }
    }
    let handler = StepFunctionsHandler(chart: chart, coding: .codable)
    let member: ChartValue = ["isWillingToExercise": true, "isInjured": false, "log": []]
    let team: ChartValue = ["members": [member], "done": []]
    let items = try await handler.handle(payload("Each member", 0, team, step: "items"))
    #expect(items == ["items": [member]])
    var element = payload("Exercise", 0, member)
    element[path: "nested"] = [0]
    let ran = try await handler.handle(element)
    let exercised: ChartValue = [
      "isWillingToExercise": true, "isInjured": false, "log": ["exercised"],
    ]
    #expect(ran == ["context": exercised, "exit": "end", "decision": "done"])
    let collected = try await handler.handle(
      payload(
        "Each member", 0, ["members": [member], "done": [], "flowchartItems": [exercised]],
        step: "collect"))
    #expect(collected == ["context": ["members": [member], "done": [exercised]], "exit": "next"])
  }

  /// A subflow written inline: its enter gives the inner context, its leave writes the end
  /// of its chart back and takes the exit the subflow's code takes.
  @Test func inlineSubflowStepsEnterAndLeave() async throws {
    let chart = try fileChart("Samples/review.json")
    let handler = StepFunctionsHandler(chart: chart, coding: .json)
    let answers: ChartValue = ["name": "Ann"]
    let entered = try await handler.handle(
      payload("Check the answers", 1, ["answers": answers], step: "enter"))
    #expect(entered == ["inner": answers])
    let left = try await handler.handle(
      payload(
        "Check the answers", 1,
        [
          "answers": answers,
          "flowchartInner": [
            ["context": ["name": "Ann", "checked": true], "decision": "no", "finalState": 1]
          ],
        ],
        step: "leave"))
    #expect(
      left == ["context": ["answers": ["name": "Ann", "checked": true]], "exit": "no"])
  }

  @Test func payloadForAnotherChartIsRefused() async throws {
    do {
      _ = try await health.handle(payload("Lift weights", 2, [:]))
      Issue.record("a payload for another chart ran")
    } catch {
      #expect(error.error == "Flowchart.BadPayload")
      #expect(
        error.cause
          == "The task's payload names state 'Lift weights' as #2, which this chart does not have: deploy the handler with the chart the definition was exported from."
      )
    }
  }

  @Test func mergeFoldsTheBranchesInDeclarationOrder() async throws {
    let chart = try Flowchart<[String: [String]]> {
      Dispatch(
        "Measure", isFinal: true,
        merge: { context, branch in context["done", default: []] += branch["done"] ?? [] }
      ) {
        Branch { Action("Take pulse", isFinal: true) { $0["done"] = ["pulse"] } }
        Branch { Action("Weigh", isFinal: true) { $0["done"] = ["weight"] } }
      }
    }
    let handler = StepFunctionsHandler(chart: chart, coding: .codable)
    let answer = try await handler.handle(
      payload(
        "Measure", 0,
        ["done": [], "flowchartBranches": [["done": ["pulse"]], ["done": ["weight"]]]],
        step: "merge"))
    #expect(answer == ["context": ["done": ["pulse", "weight"]], "exit": "next"])
  }

  @Test func mergeOfADataOnlyFileTakesEachBranchsChangedKeys() async throws {
    // A data-only chart file's dispatch joins by each branch's changed keys (a merge of all
    // the branches at once), which the merge step must apply as the run's join does.
    let text = """
      {"flowchart": [{"dispatch": "Fulfil", "final": true, "branches": [
        {"name": "Reserve stock", "states": [{"action": "Reserve", "final": true,
          "store": [{"path": "stock", "value": "reserved"}]}]},
        {"name": "Charge card", "states": [{"action": "Charge", "final": true,
          "store": [{"path": "payment", "value": "charged"}]}]}
      ]}]}
      """
    let file = try ChartFile.parse(text, syntax: .json, path: "fulfil.json")
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    let handler = StepFunctionsHandler(chart: chart, coding: .json)
    let answer = try await handler.handle(
      payload(
        "Fulfil", 0,
        [
          "order": 7,
          "flowchartBranches": [
            ["order": 7, "stock": "reserved"], ["order": 7, "payment": "charged"],
          ],
        ],
        step: "merge"))
    #expect(answer[path: "context.stock"] == "reserved")
    #expect(answer[path: "context.payment"] == "charged")
    #expect(answer[path: "context.order"] == 7)
  }

  @Test func catchRouteRunsItsHandlerWithTheCause() async throws {
    let chart = try fileChart("Samples/payment.json")
    let handler = StepFunctionsHandler(chart: chart, coding: .json)
    var request = payload(
      "Charge card", 2,
      [
        "status": "received",
        "flowchartError": ["Error": "ChartFailure", "Cause": "The card was declined"],
      ],
      step: "catch")
    request[path: "route"] = 0
    let answer = try await handler.handle(request)
    #expect(
      answer == [
        "context": ["status": "received", "failure": "The card was declined"], "exit": "next",
      ])
  }

  /// Every route of the Health workflow, driven through the exported definition by a small
  /// walker of its Task and Choice states, ends where Flowchart's own run ends, with the same
  /// context (the CI proof runs the samples on moto's real interpreter).
  @Test(arguments: [(true, false), (false, true), (false, false)])
  func definitionRunsLikeTheChart(willing: Bool, injured: Bool) async throws {
    let chart = try healthChart()
    let subject = Subject(isWillingToExercise: willing, isInjured: injured)
    let expected = try chart.runSynchronously(with: subject)
    let definition = try chart.stateMachineDefinition()
    guard case .object(let states)? = definition.document[path: "States"],
      case .string(var current)? = definition.document[path: "StartAt"]
    else { throw NetworkError() }
    var document = try ContextCoding<Subject>.codable.encode(subject)
    var visited: [String] = []
    while true {
      let state = try #require(states[current])
      if state[path: "Type"] == "Choice" {
        var next = state[path: "Default"]
        if case .array(let choices)? = state[path: "Choices"] {
          for choice in choices where document[path: "exit"] == choice[path: "StringEquals"] {
            next = choice[path: "Next"]
            break
          }
        }
        document = document[path: "context"] ?? .null
        guard case .string(let name)? = next else { break }
        current = name
        continue
      }
      guard case .string(let name)? = state[path: "Parameters.MessageBody.state"] else { break }
      visited.append(name)
      guard case .number(let id)? = state[path: "Parameters.MessageBody.stateID"] else { break }
      document = try await health.handle(payload(name, Int(id), document))
      if state[path: "OutputPath"] == "$.context" { document = document[path: "context"] ?? .null }
      guard case .string(let next)? = state[path: "Next"] else { break }
      current = next
    }
    #expect(visited == expected.pathNames)
    #expect(try ContextCoding<Subject>.codable.decode(document) == expected.context)
  }
}

/// The Swift block of the article "Running on AWS Step Functions", as a test: what it prints.
struct ArticleTests {
  @Test func articleSamplePrintsWhatTheArticleSays() async throws {
    let health = try healthChart()
    let resources = StepFunctionsResources(
      default: .function("arn:aws:lambda:eu-west-1:123456789012:function:health"))
    let definition = try health.stateMachineDefinition(resources: resources)
    #expect(
      "\(definition.stateNames.compactMap { $0 })"
        == #"["Willing_to_exercise", "Lift_weights", "Do_sit-ups", "Injured"]"#)
    let handler = StepFunctionsHandler(chart: health, coding: .codable)
    let answer = try await handler.handle([
      "state": "Willing to exercise?", "stateID": 0, "step": "state",
      "context": ["isWillingToExercise": true, "isInjured": false, "log": []],
    ])
    #expect(
      "\(answer)"
        == #"{"context": {"isInjured": false, "isWillingToExercise": true, "log": []}, "exit": "yes"}"#
    )
  }
}

/// A waiting state applies the value its payload carries as `input`.
struct WaitingStateTests {
  private let handler = StepFunctionsHandler(
    chart: try! fileChart(".ci/stepfunctions/approval.json"), coding: .json)

  @Test func waitingStateAppliesTheSentInput() async throws {
    let answer = try await handler.handle([
      "state": "Manager decision", "stateID": 1, "step": "state", "waitsForInput": true,
      "context": ["status": "submitted"], "input": ["approved": true],
    ])
    #expect(
      answer == [
        "context": ["status": "submitted", "decision": ["approved": true]], "exit": "next",
      ])
  }

  @Test func waitingStateWithoutInputSaysWhatToSend() async throws {
    do {
      _ = try await handler.handle([
        "state": "Manager decision", "stateID": 1, "step": "state", "context": [:],
      ])
      Issue.record("a waiting state ran without its input")
    } catch {
      #expect(error.error == "Flowchart.BadPayload")
      #expect(
        error.cause
          == "The task's payload is for waiting state 'Manager decision' and carries no \"input\": whoever sends the state its value adds it to the payload as \"input\" and calls the handler."
      )
    }
  }

  @Test func waitingStateIsATaskThatWaitsForInput() throws {
    let definition = try fileChart(".ci/stepfunctions/approval.json").stateMachineDefinition()
    #expect(
      definition.document[path: "States.Manager_decision.Parameters.MessageBody.waitsForInput"]
        == true)
  }
}
