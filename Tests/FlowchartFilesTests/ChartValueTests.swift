import Flowchart
import FlowchartFiles
import Testing

struct ChartValueTests {
  @Test func pathsReadObjectsAndArrays() {
    let value: ChartValue = ["answers": ["plan": "pro", "items": [["name": "a"], ["name": "b"]]]]
    #expect(value[path: "answers.plan"] == "pro")
    #expect(value[path: "answers.items.1.name"] == "b")
    #expect(value[path: "answers.items.2.name"] == nil)
    #expect(value[path: "answers.plan.x"] == nil)
    #expect(value[path: ""] == value)
  }

  @Test func settingAPathCreatesWhatItNeeds() {
    var value: ChartValue = nil
    value[path: "a.b"] = 1
    value[path: "a.list"] = []
    value[path: "a.list.2"] = true
    value[path: "a.new.0"] = "object"
    #expect(value == ["a": ["b": 1, "list": [nil, nil, true], "new": ["0": "object"]]])
    value[path: "a.b"] = nil
    #expect(value == ["a": ["list": [nil, nil, true], "new": ["0": "object"]]])
  }

  @Test func jsonTextSortsKeysAndWritesIntegersWithoutAFraction() {
    let value: ChartValue = ["b": [1, 2.5, "x\n\"y\""], "a": nil, "c": false]
    #expect(value.jsonText == #"{"a": null, "b": [1, 2.5, "x\n\"y\""], "c": false}"#)
  }

  @Test func builtInTestsCompareByType() throws {
    let file = try parse(
      """
      {"flowchart": [
        {"condition": "Check", "final": true, "test": {"all": [
          {"equal": {"path": "n", "value": 3}},
          {"greater": {"path": "n", "value": 2}},
          {"less": {"path": "s", "value": "b"}},
          {"not": {"present": "missing"}},
          {"any": [{"present": "nothing"}, {"matches": {"path": "s", "pattern": "^a+$"}}]}
        ]}}
      ]}
      """, .json)
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    #expect(try chart.runSynchronously(with: ["n": 3, "s": "aa"]).decision == .yes)
    #expect(try chart.runSynchronously(with: ["n": 3, "s": "ab"]).decision == .no)
    #expect(try chart.runSynchronously(with: ["n": "3", "s": "aa"]).decision == .no)
  }

  @Test func aMultipleConditionKeysOnTheValueAtItsPath() throws {
    let file = try parse(
      """
      <flowchart>
        <multipleCondition name="Count" value="n" final="true"/>
      </flowchart>
      """, .xml)
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    #expect(try chart.runSynchronously(with: ["n": 2]).decision == .key("2"))
    #expect(try chart.runSynchronously(with: ["n": "two"]).decision == .key("two"))
    #expect(try chart.runSynchronously(with: [:]).decision == .key("null"))
  }

  @Test func aContextReachesItsDataThroughAKeyPath() throws {
    struct Form: Sendable {
      var data: ChartValue = [:]
      var log: [String] = []
    }
    let file = try parse(
      """
      <flowchart>
        <action name="Remember" run="log">
          <storeValue path="seen" value="true" type="boolean"/>
        </action>
        <condition name="Seen?" final="true">
          <equal path="seen" value="true" type="boolean"/>
        </condition>
      </flowchart>
      """, .xml)
    var handlers = HandlerRegistry<Form>(data: \.data)
    handlers["log"] = .action { $0.log.append("ran") }
    let result = try file.flowchart(handlers: handlers).runSynchronously(with: Form())
    #expect(result.decision == .yes)
    #expect(result.context.log == ["ran"])
    #expect(result.context.data == ["seen": true])
  }

  @Test func overridesAndFallbacksWalkAChartWithoutItsCode() throws {
    let file = try ChartFile.read(contentsOf: sampleURL("health", .xml))
    var handlers = HandlerRegistry<ChartValue>()
    handlers.useStandIns()
    let chart = try file.flowchart(handlers: handlers)
    #expect(try chart.runSynchronously(with: nil).decision == .no)
    handlers.override(state: "Injured?", with: .condition { _ in true })
    let result = try file.flowchart(handlers: handlers).runSynchronously(with: nil)
    #expect(result.finalStateName == "Injured?")
    #expect(result.decision == .yes)
  }

  @Test func aDispatchMergesWithARegisteredMerge() async throws {
    let file = try parse(
      """
      {"flowchart": [
        {
          "dispatch": "Load",
          "merge": "keepBoth",
          "branches": [
            {"name": "Profile", "states": [{"action": "Profile", "final": true, "store": [{"path": "profile", "value": "Ada"}]}]},
            {"states": [{"action": "Settings", "final": true, "store": [{"path": "settings", "value": "dark"}]}]}
          ]
        },
        {"condition": "Ready?", "final": true, "test": {"all": [{"present": "profile"}, {"present": "settings"}]}}
      ]}
      """, .json)
    var handlers = HandlerRegistry<ChartValue>()
    handlers["keepBoth"] = .merge { context, branch in
      for key in ["profile", "settings"] where branch[path: key] != nil {
        context[path: key] = branch[path: key]
      }
    }
    let chart = try file.flowchart(handlers: handlers)
    let result = try await chart.run(with: [:])
    #expect(result.decision == .yes)
    expectText(
      chart.treeDescription,
      """
      Load (D)
      |- Profile: Profile (A) !
      |- Settings (A) !
      Ready? (S) !

      """)
  }
}
