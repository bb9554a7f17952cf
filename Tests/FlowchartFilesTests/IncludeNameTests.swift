import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// A chart with problems of format and `include` statements has its names checked across the
/// whole chart in the same pass: a misspelled arrow into or out of an included file is
/// reported with the format's problems, each located, with "did you mean".
struct IncludeNameTests {
  @Test func namesAcrossIncludedJSONFilesAreCheckedWithProblemsOfFormat() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.json",
      """
      {"flowchart": [
        {"action": "Start", "store": [{"path": "status", "vlaue": "new"}]},
        {"include": "parts/check.json"},
        {"condition": "Big?", "test": {"greater": {"path": "amount", "value": 100}},
         "yes": [{"goTo": "Chek"}], "no": []},
        {"action": "Approve", "final": true}
      ]}
      """)
    try folder.write(
      "parts/check.json",
      """
      {"flowchart": [
        {"action": "Check"},
        {"goTo": "Aprove"}
      ]}
      """)
    let expected = [
      "main.json:2:33: malformed file: A store needs both \"path\" and \"value\".",
      "main.json:2:52: malformed file: Unknown key \"vlaue\" in a store: its keys are \"path\" and \"value\" (did you mean \"value\"?).",
      "main.json:5:12: unknown name: GoTo 'Chek' refers to no state. Declare a state named 'Chek', or use one of the declared names (did you mean 'Check'?).",
      "parts/check.json:3:3: unknown name: GoTo 'Aprove' refers to no state. Declare a state named 'Aprove', or use one of the declared names (did you mean 'Approve'?).",
    ]
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: main)
    }
    #expect(
      found.map {
        $0.replacingOccurrences(of: main.deletingLastPathComponent().path + "/", with: "")
      } == expected)
    // The same through an includes closure.
    let texts = [
      "parts/check.json": try String(
        contentsOf: folder.url.appendingPathComponent("parts/check.json"), encoding: .utf8)
    ]
    let mainText = try String(contentsOf: main, encoding: .utf8)
    let read = problems { () throws(DefinitionError) in
      _ = try ChartFile.parse(
        Array(mainText.utf8), syntax: .json,
        path: "main.json",
        includes: { path, _ in (path, .json, Array((texts[path] ?? "").utf8)) })
    }
    #expect(read == expected)
  }

  @Test func namesAcrossIncludedXMLFilesAreCheckedWithProblemsOfFormat() throws {
    let folder = try Folder()
    let main = try folder.write(
      "main.xml",
      """
      <flowchart>
        <action name="Start"><storeValue path="status" vlaue="new"/></action>
        <include path="parts/check.xml"/>
        <condition name="Big?">
          <greater path="amount" value="100"/>
          <yes><goTo state="Chek"/></yes>
        </condition>
        <action name="Approve" final="true"/>
      </flowchart>
      """)
    try folder.write(
      "parts/check.xml",
      """
      <flowchart>
        <action name="Check"/>
        <goTo state="Aprove"/>
      </flowchart>
      """)
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: main)
    }
    #expect(
      found.map { $0.replacingOccurrences(of: folder.url.path + "/", with: "") } == [
        "main.xml:2:24: malformed file: Unknown attribute 'vlaue' on <storeValue>: its attributes are path, type, value (did you mean 'value'?).",
        "main.xml:2:24: malformed file: <storeValue> needs the attribute value=\"…\" (or type=\"null\").",
        "main.xml:6:10: unknown name: <goTo> 'Chek' refers to no state. Declare a state named 'Chek', or use one of the declared names (did you mean 'Check'?).",
        "parts/check.xml:3:3: unknown name: <goTo> 'Aprove' refers to no state. Declare a state named 'Aprove', or use one of the declared names (did you mean 'Approve'?).",
      ])
  }

  @Test(arguments: ChartSyntax.allCases)
  func anIncludeThatCannotBeReadSaysNamesWereNotChecked(syntax: ChartSyntax) throws {
    let folder = try Folder()
    let text =
      switch syntax {
      case .json:
        """
        {"flowchart": [
          {"action": "Start", "store": [{"path": "status", "vlaue": "new"}]},
          {"include": "missing.json"},
          {"goTo": "Chek"}
        ]}
        """
      case .xml:
        """
        <flowchart>
          <action name="Start"><storeValue path="status" vlaue="new"/></action>
          <include path="missing.json"/>
          <goTo state="Chek"/>
        </flowchart>
        """
      }
    let main = try folder.write("main.\(syntax.rawValue)", text)
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: main)
    }
    let unread = try #require(found.first { $0.contains("missing.json") })
    #expect(
      unread.hasSuffix(
        "cannot be read: there is no such file. Check the path. Names are not checked while an included file is unread: fix this to see any misspelled name."
      ))
    #expect(found.count == 3)
    #expect(!found.contains { $0.contains("Chek") })
  }

  @Test(arguments: ChartSyntax.allCases)
  func aGoToIntoAFileThatIncludesItselfIsStillChecked(syntax: ChartSyntax) throws {
    let folder = try Folder()
    let main: URL
    switch syntax {
    case .json:
      main = try folder.write(
        "a.json",
        """
        {"flowchart": [
          {"action": "A", "store": [{"path": "x", "vlaue": 1}]},
          {"include": "a.json"},
          {"goTo": "B"}
        ]}
        """)
    case .xml:
      main = try folder.write(
        "a.xml",
        """
        <flowchart>
          <action name="A"><storeValue path="x" vlaue="1"/></action>
          <include path="a.xml"/>
          <goTo state="B"/>
        </flowchart>
        """)
    }
    let found = problems { () throws(DefinitionError) in
      _ = try ChartFile.read(contentsOf: main)
    }
    #expect(found.count == 4)
    #expect(found.contains { $0.contains("include cycle: Including 'a.\(syntax.rawValue)' here") })
    #expect(found.last?.contains("'B' refers to no state") == true)
  }
}
