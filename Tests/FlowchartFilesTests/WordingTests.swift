import Flowchart
import FlowchartFiles
import Testing

/// The compiler's advice in a file's own terms: elements and keys, never `GoTo`, `Case`,
/// `Default`, `Branch` or `isFinal: true`.
struct WordingTests {
  func messages(_ text: String, _ syntax: ChartSyntax) -> [String] {
    problems { () throws(DefinitionError) in
      var handlers = HandlerRegistry<ChartValue>()
      handlers["plan"] = .multipleCondition { _ in "" }
      _ = try parse(text, syntax).flowchart(handlers: handlers)
    }
  }

  @Test func missingCasesNameTheCaseAndDefaultExits() {
    let xml = messages(
      """
      <flowchart>
        <multipleCondition name="Plan?" run="plan"/>
        <action name="End" final="true"/>
      </flowchart>
      """, .xml)
    #expect(
      xml == [
        "test.xml:2:3: missing exits: Multiple condition 'Plan?' has no exits. Declare a <case> for each key it can decide (and a <default> if you like), or declare it final (final=\"true\")."
      ])
    let json = messages(
      #"{"flowchart": [{"multipleCondition": "Plan?", "run": "plan"}, {"action": "End", "final": true}]}"#,
      .json)
    #expect(
      json == [
        #"test.json:1:16: missing exits: Multiple condition 'Plan?' has no exits. Declare a "case" exit for each key it can decide (and a "default" exit if you like), or declare it final ("final": true)."#
      ])
  }

  @Test func anEmptyDispatchNamesTheBranchElement() {
    let xml = messages(
      """
      <flowchart>
        <dispatch name="Fan out"/>
        <action name="End" final="true"/>
      </flowchart>
      """, .xml)
    #expect(
      xml == [
        "test.xml:2:3: dispatch without branches: Dispatch 'Fan out' has no branches. Declare at least one <branch>, or use an <action> instead."
      ])
  }

  @Test func anUnreachableStateSaysHowToListAnEntryPoint() {
    let xml = messages(
      """
      <flowchart>
        <action name="Start" final="true"/>
        <action name="Orphan" final="true"/>
      </flowchart>
      """, .xml)
    #expect(xml.count == 1)
    #expect(xml.first?.contains("Reach it with a <goTo>, list it as an <entryPoint> if") == true)
    let json = messages(
      #"{"flowchart": [{"action": "Start", "final": true}, {"action": "Orphan", "final": true}]}"#,
      .json)
    #expect(json.first?.contains(#"Reach it with a goTo, list it in "entryPoints" if"#) == true)
  }

  @Test func anEmptyChartGivesAnExampleInTheFilesSyntax() {
    #expect(
      messages(#"{"flowchart": []}"#, .json) == [
        #"test.json:1: empty chart: The chart declares no states. Declare at least one state, such as {"action": "Done", "final": true}."#
      ])
  }

  @Test func noMessageNamesTheDSLsTypes() {
    let xml = messages(
      """
      <flowchart>
        <condition name="Ready?" run="plan" final="true">
          <yes><goTo state="Nowhere"/></yes>
        </condition>
        <dispatch name="Fan out"/>
      </flowchart>
      """, .xml)
    #expect(!xml.isEmpty)
    for message in xml {
      for word in ["GoTo", "Case", "Default", "Branch {", "isFinal", "Action("] {
        #expect(!message.contains(word), "\(message)")
      }
    }
  }
}
