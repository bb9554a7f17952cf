import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// Dispatch options, waits, subflows, maps and outcomes, written in files.
struct NewKindsTests {
  // MARK: - Dispatch

  @Test func dispatchOptionsReachTheCompiledChart() throws {
    let file = try parse(
      """
      {"flowchart": [
        {"dispatch": "Order", "maxConcurrency": 1, "join": "quorum(2)", "branches": [
          {"name": "A", "states": [{"action": "A1", "final": true}]},
          {"name": "B", "after": ["A"], "states": [{"action": "B1", "final": true}]}
        ]},
        {"action": "End", "final": true}
      ]}
      """, .json)
    guard case .dispatch(let dispatch) = file.states[0].kind else {
      Issue.record("not a dispatch")
      return
    }
    #expect(dispatch.maxConcurrency == 1)
    #expect(dispatch.join == .quorum(2))
    #expect(dispatch.branches[1].after == ["A"])
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    let result = try chart.runSynchronously(with: .object([:]))
    #expect(result.pathNames == ["Order", "A1", "B1", "End"])
  }

  @Test func aPrerequisiteNamingNoBranchIsLocated() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        <flowchart>
          <dispatch name="Order">
            <branch name="A"><action name="A1" final="true"/></branch>
            <branch name="B">
              <after branch="Z"/>
              <action name="B1" final="true"/>
            </branch>
          </dispatch>
          <action name="End" final="true"/>
        </flowchart>
        """, .xml
      ).flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("test.xml:4:5:") == true, "\(found)")
    #expect(found.first?.contains("'Z'") == true, "\(found)")
  }

  @Test func aWrongJoinPolicyAndAnAfterBelowTheStatesAreLocated() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        <flowchart>
          <dispatch name="Order" join="most">
            <branch name="A"><action name="A1" final="true"/><after branch="B"/></branch>
          </dispatch>
        </flowchart>
        """, .xml)
    }
    #expect(
      found == [
        "test.xml:2:3: malformed file: join=\"most\" on <dispatch>: write all, firstSuccess, toleratingFailures(N) or quorum(N).",
        // Reported in the same pass as the problems of format.
        "test.xml:3:5: unknown prerequisite: Branch 1 ('A') of Dispatch 'Order' waits for 'B', which names no branch of that dispatch. Name a branch 'B', or wait for one of its named branches (did you mean 'A'?).",
        "test.xml:3:54: malformed file: <after> comes after the branch's states: list a branch's <after> elements first.",
      ])
  }

  @Test(arguments: ["all", "firstSuccess", "toleratingFailures(3)", "quorum(2)"])
  func joinPoliciesReadBackAsWritten(text: String) throws {
    let join = try #require(ChartJoin(text: text))
    #expect(join.text == text)
  }

  @Test(arguments: ["", "quorum()", "quorum(-1)", "quorum(1", "toleratingFailures(x)", "All"])
  func malformedJoinPoliciesAreRefused(text: String) {
    #expect(ChartJoin(text: text) == nil)
  }

  // MARK: - Wait

  @Test func aDataOnlyWaitStoresTheValueItIsSent() async throws {
    let chart = try parse(
      """
      {"flowchart": [
        {"wait": "Approval", "storeAt": "approval.by"},
        {"action": "Done", "final": true}
      ]}
      """, .json
    ).flowchart(handlers: HandlerRegistry<ChartValue>())
    let handle = chart.start(with: .object([:]))
    try handle.send(ChartValue.string("Ann"), to: "Approval")
    let result = try await handle.result
    #expect(result.context[path: "approval.by"] == .string("Ann"))
  }

  @Test func aWaitBoundByNameAppliesItsTypedInput() async throws {
    var handlers = HandlerRegistry<Subject>()
    handlers["recordInjury"] = .input(Bool.self) { subject, injured in subject.isInjured = injured }
    let chart = try parse(
      """
      <flowchart>
        <wait name="Doctor's note" run="recordInjury" final="true"/>
      </flowchart>
      """, .xml
    ).flowchart(handlers: handlers)
    let handle = chart.start(with: Subject(isWillingToExercise: true, isInjured: false))
    try handle.send(true, to: "Doctor's note")
    #expect(try await handle.result.context.isInjured)
  }

  @Test func aWaitNamingAnotherKindOfHandlerIsLocated() {
    var handlers = HandlerRegistry<ChartValue>()
    handlers["note"] = .action { _ in }
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [{"wait": "Note", "run": "note", "final": true}]}
        """, .json
      ).flowchart(handlers: handlers)
    }
    #expect(
      found == [
        "test.json:1:16: mismatched handler: Wait 'Note' names 'note' as its input, but 'note' is registered as an action. Name a registered input, or register one under another name."
      ])
  }

  // MARK: - Subflow

  @Test(arguments: ChartSyntax.allCases)
  func aSubflowRunsAnotherFileOnAPathOfTheData(syntax: ChartSyntax) async throws {
    let chart = try ChartFile.read(contentsOf: sampleURL("review", syntax))
      .flowchart(handlers: HandlerRegistry<ChartValue>())
    let complete = try chart.runSynchronously(
      with: ["answers": ["name": "Ann", "email": "ann@example.com"]])
    #expect(complete.finalStateName == "Approve")
    #expect(complete.outcome(as: String.self) == "approved")
    #expect(complete.context[path: "answers.checked"] == .bool(true))
    let incomplete = try chart.runSynchronously(with: ["answers": ["name": "Ann"]])
    #expect(incomplete.finalStateName == "Ask again")
    #expect(incomplete.outcome(as: String.self) == "incomplete")
  }

  @Test func aKeyedSubflowMissingAnInnerFinalStateIsLocated() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.json",
      """
      {"flowchart": [
        {"subflow": "Check", "chart": "inner.xml", "exits": [
          {"case": "Fine", "states": [{"action": "Go on", "final": true}]}
        ]}
      ]}
      """)
    try folder.write(
      "inner.xml",
      """
      <flowchart>
        <condition name="Good?" run="isGood">
          <yes><action name="Fine" final="true"/></yes>
          <no><action name="Bad" final="true"/></no>
        </condition>
      </flowchart>
      """)
    var handlers = HandlerRegistry<ChartValue>()
    handlers["isGood"] = .condition { _ in true }
    let file = try ChartFile.read(contentsOf: main)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: handlers)
    }
    #expect(found.count == 1)
    #expect(found.first?.contains("main.json:2:3:") == true, "\(found)")
    #expect(found.first?.contains("'Bad'") == true, "\(found)")
  }

  @Test func theProblemsOfASubflowsChartAreLocatedInItsFile() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.xml",
      """
      <flowchart>
        <subflow name="Inner" chart="inner.json"/>
        <action name="End" final="true"/>
      </flowchart>
      """)
    try folder.write("inner.json", #"{"flowchart": [{"action": "Work", "run": "missing"}]}"#)
    let file = try ChartFile.read(contentsOf: main)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(found.count == 2, "\(found)")
    #expect(found.allSatisfy { $0.contains("inner.json:1:16:") }, "\(found)")
  }

  @Test func aSubflowThatIncludesItsOwnFileIsACycle() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.json",
      #"{"flowchart": [{"subflow": "Again", "chart": "main.json", "final": true}]}"#)
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: main)
    }
    #expect(found.count == 1)
    #expect(found.first?.contains("include cycle") == true, "\(found)")
  }

  // MARK: - Map

  @Test(arguments: ChartSyntax.allCases)
  func aMapWritesItsResultsInInputOrder(syntax: ChartSyntax) async throws {
    let chart = try ChartFile.read(contentsOf: sampleURL("gallery", syntax))
      .flowchart(handlers: HandlerRegistry<ChartValue>())
    let result = try await chart.run(
      with: ["photos": [["width": 3000], ["width": 100], ["width": 2500]]])
    #expect(
      result.context[path: "resized"]
        == .array([
          .object(["width": .number(2000)]), .object(["width": .number(100)]),
          .object(["width": .number(2000)]),
        ]))
    #expect(result.context[path: "status"] == .string("published"))
  }

  @Test func aMapOverSomethingOtherThanAnArrayFailsAndSaysWhy() async throws {
    let chart = try ChartFile.read(contentsOf: sampleURL("gallery", .json))
      .flowchart(handlers: HandlerRegistry<ChartValue>())
    await #expect {
      _ = try await chart.run(with: ["photos": "none"])
    } throws: { error in
      "\(error)".contains(
        "Map 'Resize each photo' runs over 'photos', which holds a string, not an array")
    }
  }

  @Test func aMapNeedsDataAndAChart() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [
          {"map": "Each", "over": "items", "final": true}
        ]}
        """, .json)
    }
    #expect(
      found == [
        "test.json:2:3: malformed file: Map 'Each' has neither \"chart\" (a chart file) nor \"states\" (the states run per element): add one."
      ])
    let typed = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [
          {"map": "Each", "over": "items", "final": true, "states": [{"action": "One", "final": true}]}
        ]}
        """, .json
      ).flowchart(handlers: HandlerRegistry<Subject>())
    }
    #expect(typed.count == 1)
    // Without data, `over` names a registered collection, which the registry lacks.
    #expect(
      typed.first?.hasPrefix(
        "test.json:2:3: unbound name: Map 'Each' runs over 'items', which is not a registered collection"
      ) == true)
  }

  // MARK: - Outcomes

  @Test func anOutcomeNamingAStateThatIsNotFinalIsLocatedAtItsRule() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        <flowchart>
          <action name="Work"/>
          <action name="End" final="true"/>
          <outcomes>
            <outcome value="done" state="Work"/>
          </outcomes>
        </flowchart>
        """, .xml
      ).flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("test.xml:5:5: invalid outcome:") == true, "\(found)")
  }

  @Test func outcomesAreWordedForTheFile() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [{"action": "End", "final": true}],
         "outcomes": {"mapsEveryEnd": true, "rules": []}}
        """, .json
      ).flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(found.count == 1)
    #expect(found.first?.contains("Add a rule for it to the file's \"outcomes\"") == true)
  }
}
