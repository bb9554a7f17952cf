import Flowchart
import FlowchartFiles
import Testing

struct ErrorTests {
  @Test func bindingAndStructuralProblemsAreReportedTogether() throws {
    let file = try parse(
      """
      {
        "flowchart": [
          {"condition": "Check first launch", "run": "isFirstLanch", "yes": [
            {"action": "Fetch something", "run": "passesOtherCheck"},
            {"goTo": "Final stat"}
          ]},
          {"action": "Final state", "final": true}
        ]
      }
      """, .json)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: launchHandlers())
    }
    #expect(
      found == [
        "test.json:3:5: unbound name: Condition 'Check first launch' names the condition 'isFirstLanch', which is not registered. Register it (handlers[\"isFirstLanch\"] = .condition { … }), or fix the name (did you mean 'isFirstLaunch'?).",
        "test.json:4:7: mismatched handler: Action 'Fetch something' names 'passesOtherCheck' as its action, but 'passesOtherCheck' is registered as a condition. Name a registered action, or register one under another name.",
        "test.json:5:7: unknown name: GoTo 'Final stat' refers to no state. Declare a state named 'Final stat', or use one of the declared names (did you mean 'Final state'?).",
      ])
  }

  @Test func xmlProblemsNameTheElementsLineAndColumn() throws {
    let file = try parse(
      """
      <flowchart>
        <condition name="Willing?" run="isWillingToExercise">
          <yes><action name="Lift" run="lift"/></yes>
        </condition>
      </flowchart>
      """, .xml)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: healthHandlers())
    }
    #expect(found.count == 3)
    #expect(
      found[0].hasPrefix("test.xml:2:3: exit leads nowhere: The 'no' exit of Condition 'Willing?'"))
    #expect(
      found[1].hasPrefix("test.xml:3:10: unbound name: Action 'Lift' names the action 'lift'"))
    #expect(
      found[2].hasPrefix("test.xml:3:10: exit leads nowhere: Action 'Lift' is the last state"))
  }

  @Test(arguments: [
    (
      "{\"flowchart\": [",
      "test.json:1:15: malformed file: The array that starts here is not closed: the file is truncated, or a ']' is missing."
    ),
    (
      "{\"flowchart\": [], \"flowchart\": []}",
      "test.json:1:19: malformed file: The key \"flowchart\" appears twice in one object: keep one."
    ),
    (
      "{\"flowchart\": [{\"action\": \"A\", \"fnal\": true}]}",
      "test.json:1:32: malformed file: Unknown key \"fnal\" for an action: its keys are \"catch\", \"fail\", \"final\", \"retry\", \"run\", \"store\", \"timeout\" (did you mean \"final\"?)."
    ),
    (
      "{\"flowchart\": [{\"condition\": \"C\"}]}",
      "test.json:1:16: malformed file: Condition 'C' has neither \"run\" (a registered condition) nor \"test\" (a built-in test): add one."
    ),
    (
      "{\"flowchart\": [{\"action\": 3}]}",
      "test.json:1:27: malformed file: \"action\" takes a string, not a number."
    ),
    ("", "test.json:1:1: malformed file: The file is empty: write a JSON object."),
  ])
  func jsonMistakesAreLocated(text: String, expected: String) {
    let found = problems { () throws(DefinitionError) in _ = try parse(text, .json) }
    #expect(found == [expected])
  }

  @Test func invalidUTF8IsALocatedError() {
    var bytes = Array("{\"flowchart\": [{\"action\": \"A".utf8)
    bytes += [0xFF, 0xFE]
    bytes += Array("\"}]}".utf8)
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.parse(bytes, syntax: .json, path: "bad.json")
    }
    #expect(
      found == [
        "bad.json:1:27: malformed file: The string that starts here is not valid UTF-8: save the file as UTF-8."
      ])
    let xml = Array("<flowchart><action name=\"".utf8) + [0xFF] + Array("\"/></flowchart>".utf8)
    let xmlFound = problems { () throws(DefinitionError) in
      _ = try ChartFile.parse(xml, syntax: .xml, path: "bad.xml")
    }
    #expect(xmlFound.count == 1)
    #expect(xmlFound.first?.hasPrefix("bad.xml:1:") == true)
  }

  @Test(arguments: [
    ("<flowchart><action name=\"A\" name=\"B\"/></flowchart>", "attribute appears twice"),
    ("<flowchart><action name=\"A\"></flowchart>", "end tag does not match"),
    ("<flowchart><action name=\"A\"/>", "not well-formed"),
    ("<flowchart><acton name=\"A\"/></flowchart>", "Unknown element <acton>"),
    ("<flowchart><action/></flowchart>", "<action> needs the attribute name"),
    ("<!DOCTYPE x [<!ENTITY a \"b\">]><flowchart/>", "document type declaration"),
    ("<flowchart><action name=\"A\" final=\"yes\"/></flowchart>", "write final=\"true\""),
    ("<flowchart>text<action name=\"A\"/></flowchart>", "holds the text 'text'"),
  ])
  func xmlMistakesAreLocated(text: String, expected: String) {
    let found = problems { () throws(DefinitionError) in _ = try parse(text, .xml) }
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("test.xml:1:") == true)
    #expect(found.first?.contains(expected) == true, "\(found)")
  }

  @Test(arguments: [
    (
      "{\"flowchart\": [{\"action\": \"A\" \"final\": true}, {\"goTo\": \"Nowhere\"}]}",
      ChartSyntax.json
    ),
    ("<flowchart><action name=\"A\"></flowchart><goTo state=\"Nowhere\"/>", ChartSyntax.xml),
  ])
  func aSyntaxErrorSaysItHidesWhatComesAfterIt(text: String, syntax: ChartSyntax) {
    let found = problems { () throws(DefinitionError) in _ = try parse(text, syntax) }
    #expect(found.count == 1)
    #expect(
      found.first?.hasSuffix(
        "Reading stops at a syntax error: fix it to see any problem after it.") == true,
      "\(found)")
  }

  @Test func deepNestingIsRefusedWithoutOverflowingTheStack() {
    let depth = 100_000
    let json = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    let found = problems { () throws(DefinitionError) in _ = try parse(json, .json) }
    #expect(found.first?.contains("nest more than 512 levels") == true)

    var xml = "<flowchart>"
    for _ in 0..<1_000 { xml += "<condition name=\"C\" run=\"c\"><yes>" }
    let xmlFound = problems { () throws(DefinitionError) in _ = try parse(xml, .xml) }
    #expect(xmlFound.count == 1)

    var states = "{\"flowchart\": [{\"action\": \"Leaf\", \"final\": true}]}"
    for level in 0..<120 {
      states = states.replacingOccurrences(
        of: "{\"action\": \"Leaf\", \"final\": true}",
        with:
          "{\"condition\": \"C\(level)\", \"run\": \"c\", \"yes\": [{\"action\": \"Leaf\", \"final\": true}]}"
      )
    }
    let stateFound = problems { () throws(DefinitionError) in _ = try parse(states, .json) }
    #expect(stateFound.first?.contains("States nest more than 100 levels deep") == true)
  }

  @Test func aBuiltInTestNeedsADataContext() throws {
    let file = try parse(
      "{\"flowchart\": [{\"condition\": \"Adult?\", \"final\": true, \"test\": {\"present\": \"age\"}}]}",
      .json)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: HandlerRegistry<Subject>())
    }
    #expect(found.count == 1)
    #expect(
      found.first?.hasPrefix(
        "test.json:1:16: mismatched handler: Condition 'Adult?' uses the built-in data") == true)
  }

  @Test func anInvalidPatternIsLocated() throws {
    let file = try parse(
      """
      <flowchart>
        <condition name="Email?" final="true">
          <matches path="email" pattern="(unclosed"/>
        </condition>
      </flowchart>
      """, .xml)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(
      found == [
        "test.xml:3:5: malformed file: The pattern '(unclosed' is not a regular expression this platform reads: fix it."
      ])
  }

  @Test func anEntryPointProblemIsPlacedAtTheEntryPoint() throws {
    let file = try parse(
      """
      <flowchart>
        <entryPoint state="Nowhere"/>
        <action name="Done" final="true"/>
      </flowchart>
      """, .xml)
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("test.xml:2:3: unknown name:") == true)
  }

  @Test func theCompilersAdviceIsWordedForTheFilesSyntax() throws {
    let xml = try parse(
      """
      <flowchart>
        <action name="Start"/>
      </flowchart>
      """, .xml)
    let xmlFound = problems { () throws(DefinitionError) in
      _ = try xml.flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(
      xmlFound == [
        "test.xml:2:3: exit leads nowhere: Action 'Start' is the last state of the top level and is not final, so the flow has nowhere to go after it. Add a state or a <goTo> after it, or declare it final (final=\"true\")."
      ])
    let json = try parse(#"{"flowchart": [{"condition": "Ready?", "run": "ready"}]}"#, .json)
    var handlers = HandlerRegistry<ChartValue>()
    handlers["ready"] = .condition { _ in true }
    let jsonFound = problems { () throws(DefinitionError) in
      _ = try json.flowchart(handlers: handlers)
    }
    #expect(
      jsonFound == [
        #"test.json:1:16: missing exits: Condition 'Ready?' has no exits. Give it "yes" and "no" blocks, or declare it final ("final": true) if the run ends with its decision."#
      ])
  }
}
