import Flowchart
import FlowchartFiles
import Testing

/// How a file's dispatch joins its branches' changes: each branch's changed keys by default,
/// `discard`, or a registered merge; a key two branches change is never a silent choice.
struct DispatchJoinTests {
  /// A dispatch whose two branches store `first` and `second` at `firstPath` and
  /// `secondPath`, in `syntax`, with `changes` when given.
  func fulfil(
    _ syntax: ChartSyntax, firstPath: String = "stock", secondPath: String = "payment",
    first: String = "reserved", second: String = "charged", changes: String? = nil
  ) -> String {
    switch syntax {
    case .json:
      let option = changes.map { ", \"changes\": \"\($0)\"" } ?? ""
      return """
        {"flowchart": [
          {"dispatch": "Fulfil"\(option), "branches": [
            {"name": "Reserve stock", "states": [{"action": "Reserve", "final": true, "store": [{"path": "\(firstPath)", "value": "\(first)"}]}]},
            {"name": "Charge card", "states": [{"action": "Charge", "final": true, "store": [{"path": "\(secondPath)", "value": "\(second)"}]}]}
          ]},
          {"action": "Done", "final": true}
        ]}
        """
    case .xml:
      let option = changes.map { " changes=\"\($0)\"" } ?? ""
      return """
        <flowchart>
          <dispatch name="Fulfil"\(option)>
            <branch name="Reserve stock">
              <action name="Reserve" final="true"><storeValue path="\(firstPath)" value="\(first)"/></action>
            </branch>
            <branch name="Charge card">
              <action name="Charge" final="true"><storeValue path="\(secondPath)" value="\(second)"/></action>
            </branch>
          </dispatch>
          <action name="Done" final="true"/>
        </flowchart>
        """
    }
  }

  @Test(arguments: ChartSyntax.allCases)
  func eachBranchsChangedKeysAreKeptByDefault(syntax: ChartSyntax) async throws {
    let chart = try parse(fulfil(syntax), syntax).flowchart(handlers: HandlerRegistry<ChartValue>())
    let start: ChartValue = ["order": 7]
    let expected: ChartValue = ["order": 7, "stock": "reserved", "payment": "charged"]
    #expect(try chart.runSynchronously(with: start).context == expected)
    #expect(try await chart.run(with: start).context == expected)
  }

  @Test(arguments: ChartSyntax.allCases)
  func mergeWrittenOutIsTheDefault(syntax: ChartSyntax) throws {
    let chart = try parse(fulfil(syntax, changes: "merge"), syntax)
      .flowchart(handlers: HandlerRegistry<ChartValue>())
    let result = try chart.runSynchronously(with: [:])
    #expect(result.context == ["stock": "reserved", "payment": "charged"])
  }

  @Test(arguments: ChartSyntax.allCases)
  func discardDropsTheBranchesChanges(syntax: ChartSyntax) throws {
    let chart = try parse(fulfil(syntax, changes: "discard"), syntax)
      .flowchart(handlers: HandlerRegistry<ChartValue>())
    #expect(try chart.runSynchronously(with: ["order": 7]).context == ["order": 7])
  }

  @Test(arguments: ChartSyntax.allCases)
  func keysInsideOneObjectJoinKeyByKey(syntax: ChartSyntax) throws {
    let chart = try parse(
      fulfil(syntax, firstPath: "order.stock", secondPath: "order.payment"), syntax
    ).flowchart(handlers: HandlerRegistry<ChartValue>())
    let result = try chart.runSynchronously(with: ["order": ["id": 7]])
    #expect(result.context == ["order": ["id": 7, "stock": "reserved", "payment": "charged"]])
  }

  @Test func twoBranchesStoringOneKeyIsAProblemInEitherFormat() {
    let json = problems { () throws(DefinitionError) in
      _ = try parse(fulfil(.json, secondPath: "stock"), .json)
        .flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(
      json == [
        "test.json:4:86: invalid dispatch option: Dispatch 'Fulfil': branches 'Reserve stock' and 'Charge card' both change 'stock' (the other at test.json:3:89), and a dispatch takes each key from one branch only, so a run would stop at the join: have each branch change keys of its own, or name a registered merge that decides (merge)."
      ])
    let xml = problems { () throws(DefinitionError) in
      _ = try parse(fulfil(.xml, secondPath: "stock"), .xml)
        .flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(
      xml == [
        "test.xml:7:42: invalid dispatch option: Dispatch 'Fulfil': branches 'Reserve stock' and 'Charge card' both change 'stock' (the other at test.xml:4:43), and a dispatch takes each key from one branch only, so a run would stop at the join: have each branch change keys of its own, or name a registered merge that decides (merge)."
      ])
  }

  @Test(arguments: ChartSyntax.allCases)
  func oneValueStoredByTwoBranchesIsNoConflict(syntax: ChartSyntax) throws {
    let chart = try parse(fulfil(syntax, secondPath: "stock", second: "reserved"), syntax)
      .flowchart(handlers: HandlerRegistry<ChartValue>())
    #expect(try chart.runSynchronously(with: [:]).context == ["stock": "reserved"])
  }

  @Test(arguments: ChartSyntax.allCases)
  func twoHandlersChangingOneKeyStopTheRunNamingTheKeyAndBothBranches(syntax: ChartSyntax)
    async throws
  {
    let text =
      syntax == .json
      ? """
      {"flowchart": [
        {"dispatch": "Fulfil", "branches": [
          {"name": "Reserve stock", "states": [{"action": "Reserve", "final": true, "run": "reserve"}]},
          {"states": [{"action": "Charge", "final": true, "run": "charge"}]}
        ]},
        {"action": "Done", "final": true}
      ]}
      """
      : """
      <flowchart>
        <dispatch name="Fulfil">
          <branch name="Reserve stock"><action name="Reserve" final="true" run="reserve"/></branch>
          <branch><action name="Charge" final="true" run="charge"/></branch>
        </dispatch>
        <action name="Done" final="true"/>
      </flowchart>
      """
    var handlers = HandlerRegistry<ChartValue>()
    handlers["reserve"] = .action { $0[path: "order.status"] = "reserved" }
    handlers["charge"] = .action { $0[path: "order"] = "charged" }
    let chart = try parse(text, syntax).flowchart(handlers: handlers)
    let message =
      "The run stopped at dispatch 'Fulfil' (test.\(syntax.rawValue):2:3): its branches 'Reserve stock' and branch 2 changed 'order' ('Reserve stock' at 'order.status', branch 2 at 'order'), and a dispatch takes each key from one branch only: have each branch change keys of its own, or name a registered merge that decides (merge)."
    #expect(throws: RunError.self) { _ = try chart.runSynchronously(with: [:]) }
    do {
      _ = try await chart.run(with: [:])
      Issue.record("Expected a conflict")
    } catch {
      #expect("\(error)".contains(message), "\(error)")
    }
  }

  @Test func aBranchAfterAnotherKeepsItsChanges() throws {
    let chart = try ChartFile.read(contentsOf: sampleURL("order", .json))
      .flowchart(handlers: HandlerRegistry<ChartValue>())
    let result = try chart.runSynchronously(with: [:])
    #expect(result.context == ["status": "shipped", "project": "created", "photos": "uploaded"])
  }

  @Test(arguments: ChartSyntax.allCases)
  func aContextThatIsNotAChartValueMustSayHowBranchesJoin(syntax: ChartSyntax) throws {
    struct Order: Sendable {}
    let found = problems { () throws(DefinitionError) in
      _ = try parse(fulfil(syntax), syntax).flowchart(handlers: HandlerRegistry<Order>())
    }
    let at = syntax == .json ? "test.json:2:3" : "test.xml:2:3"
    #expect(
      found.first
        == "\(at): invalid dispatch option: Dispatch 'Fulfil' does not say how its branches' changes join, and its context Order is not a ChartValue whose keys could be merged: name a registered merge (merge), or drop the branches' changes with changes \"discard\"."
    )
    let discarding = problems { () throws(DefinitionError) in
      _ = try parse(fulfil(syntax, changes: "discard"), syntax)
        .flowchart(handlers: HandlerRegistry<Order>())
    }
    // Only the stores, which need data, remain.
    #expect(!discarding.contains { $0.contains("invalid dispatch option") }, "\(discarding)")
  }

  @Test func aWrongChangesValueAndOneBesideAMergeAreLocated() {
    let json = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [
          {"dispatch": "A", "changes": "keep", "branches": [{"states": [{"action": "A1", "final": true}]}]},
          {"dispatch": "B", "merge": "m", "changes": "discard", "branches": [{"states": [{"action": "B1", "final": true}]}]},
          {"action": "End", "final": true}
        ]}
        """, .json)
    }
    #expect(
      json == [
        "test.json:2:32: malformed file: \"changes\": \"keep\" is not a join of changes: write \"merge\" (each branch's changed keys, the default) or \"discard\" (drop the branches' changes).",
        "test.json:3:46: malformed file: Dispatch 'B' has both \"merge\" (a registered merge) and \"changes\": keep one.",
      ])
    let xml = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        <flowchart>
          <dispatch name="A" changes="keep"><branch><action name="A1" final="true"/></branch></dispatch>
          <dispatch name="B" merge="m" changes="discard"><branch><action name="B1" final="true"/></branch></dispatch>
          <action name="End" final="true"/>
        </flowchart>
        """, .xml)
    }
    #expect(
      xml == [
        "test.xml:2:3: malformed file: changes=\"keep\" on <dispatch>: write merge (each branch's changed keys, the default) or discard (drop the branches' changes).",
        "test.xml:3:3: malformed file: Dispatch 'B' has both merge=\"…\" (a registered merge) and changes=\"discard\": keep one.",
      ])
  }

  @Test(arguments: ChartSyntax.allCases)
  func changesAreWrittenAndReadBack(syntax: ChartSyntax) throws {
    let file = try parse(fulfil(syntax, changes: "discard"), syntax)
    for other in ChartSyntax.allCases {
      let reread = try ChartFile.parse(file.text(in: other), syntax: other, path: "back")
      #expect(reread.text(in: syntax) == file.text(in: syntax))
      #expect(file.text(in: other).contains("discard"))
    }
  }
}
