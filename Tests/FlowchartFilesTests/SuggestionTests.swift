import Flowchart
import FlowchartFiles
import Testing

/// A chart file's problems come in one pass, each located, with "did you mean" for a
/// misspelled key, attribute, element, test or state name.
struct SuggestionTests {
  @Test func threeMistakesInJSONAreReportedTogether() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [
          {"condition": "Big?", "test": {"greter": {"path": "amount", "value": 100}},
           "yes": [{"goTo": "Aprove"}], "no": []},
          {"action": "Approve", "final": true, "store": [{"path": "status", "vlaue": "ok"}]}
        ]}
        """, .json)
    }
    #expect(
      found == [
        "test.json:2:34: malformed file: Unknown test \"greter\": the tests are \"equal\", \"less\", \"greater\", \"present\", \"matches\", \"all\", \"any\", \"not\" (did you mean \"greater\"?).",
        "test.json:3:12: unknown name: GoTo 'Aprove' refers to no state. Declare a state named 'Aprove', or use one of the declared names (did you mean 'Approve'?).",
        "test.json:4:50: malformed file: A store needs both \"path\" and \"value\".",
        "test.json:4:69: malformed file: Unknown key \"vlaue\" in a store: its keys are \"path\" and \"value\" (did you mean \"value\"?).",
      ])
  }

  @Test func threeMistakesInXMLAreReportedTogether() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        <flowchart>
          <condition name="Big?">
            <greter path="amount" value="100"/>
            <yes><goTo state="Aprove"/></yes>
          </condition>
          <action name="Approve" final="true"><storeValue path="status" vlaue="ok"/></action>
        </flowchart>
        """, .xml)
    }
    #expect(
      found == [
        "test.xml:3:5: malformed file: <condition> holds <greter>: it holds a test (equal, less, greater, present, matches, all, any, not), <yes> and <no> (did you mean <greater>?).",
        "test.xml:4:10: unknown name: <goTo> 'Aprove' refers to no state. Declare a state named 'Aprove', or use one of the declared names (did you mean 'Approve'?).",
        "test.xml:6:39: malformed file: Unknown attribute 'vlaue' on <storeValue>: its attributes are path, type, value (did you mean 'value'?).",
        "test.xml:6:39: malformed file: <storeValue> needs the attribute value=\"…\" (or type=\"null\").",
      ])
  }

  @Test func aMisspelledKindIsSuggested() {
    let json = problems { () throws(DefinitionError) in
      _ = try parse(#"{"flowchart": [{"acton": "A", "final": true}]}"#, .json)
    }
    #expect(
      json == [
        "test.json:1:16: malformed file: This object declares no state: give it one of the keys \"action\", \"condition\", \"multipleCondition\", \"dispatch\", \"wait\", \"subflow\", \"map\", \"delay\", \"goTo\", \"include\" (did you mean \"action\" for \"acton\"?)."
      ])
    let xml = problems { () throws(DefinitionError) in
      _ = try parse(#"<flowchart><acton name="A" final="true"/></flowchart>"#, .xml)
    }
    #expect(
      xml == [
        "test.xml:1:12: malformed file: Unknown element <acton>: a block holds <action>, <condition>, <multipleCondition>, <dispatch>, <wait>, <subflow>, <map>, <delay>, <goTo>, <include> (did you mean <action>?)."
      ])
  }

  @Test func misspelledKeysAndAttributesOfAStateAreSuggested() {
    let json = problems { () throws(DefinitionError) in
      _ = try parse(#"{"flowchart": [{"action": "A", "fnal": true}]}"#, .json)
    }
    #expect(json.count == 1)
    #expect(json.first?.hasSuffix("(did you mean \"final\"?).") == true, "\(json)")
    let xml = problems { () throws(DefinitionError) in
      _ = try parse(#"<flowchart><action name="A" fnal="true"/></flowchart>"#, .xml)
    }
    #expect(
      xml == [
        "test.xml:1:12: malformed file: Unknown attribute 'fnal' on <action>: its attributes are fail, final, name, run, timeout (did you mean 'final'?)."
      ])
  }

  @Test func aMisspelledModifierKeyIsSuggested() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        #"{"flowchart": [{"action": "A", "final": true, "retry": {"cont": 2}}]}"#, .json)
    }
    #expect(
      found.contains(
        "test.json:1:57: malformed file: Unknown key \"cont\" in a retry: its keys are \"count\", \"backoff\", \"delay\", \"initial\", \"multiplier\", \"maximum\", \"jitter\", \"seed\", \"errors\" (did you mean \"count\"?)."
      ), "\(found)")
  }

  @Test(arguments: ChartSyntax.allCases)
  func anArrowToAStateLeftOutForItsOwnProblemIsNoSecondProblem(syntax: ChartSyntax) {
    let text =
      syntax == .json
      ? #"{"flowchart": [{"goTo": "Each"}, {"map": "Each", "chart": "x.json"}, {"action": "End", "final": true}]}"#
      : #"<flowchart><goTo state="Each"/><map name="Each" chart="x.xml"/><action name="End" final="true"/></flowchart>"#
    let found = problems { () throws(DefinitionError) in _ = try parse(text, syntax) }
    #expect(found.count == 1, "\(found)")
    #expect(found.first?.contains("refers to no state") == false, "\(found)")
  }

  @Test func aWordFarFromEveryCandidateGetsNoSuggestion() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(#"{"flowchart": [{"action": "A", "zzzzzz": true}]}"#, .json)
    }
    #expect(found.count == 1)
    #expect(found.first?.contains("did you mean") == false, "\(found)")
  }
}
