import Foundation
import Testing

@testable import Flowchart

/// The diagrams of every kind of state, of final states and of modifiers: a shape of its own
/// for each kind, one end mark for the end of a run (and none for the end of a branch), a
/// modified state's timeout and retries on its box and its catch routes as error arrows, and
/// arrows that order branches, in both syntaxes; and Graphviz's `dot` reading them.
struct DiagramKindsTests {
  @Test func everyKindHasAShapeOfItsOwn() throws {
    let chart = try DiagramKindCharts.everyKind()
    let diagram = Diagram(graph: chart.graph)
    var shapes: [StateKind: Diagram.Shape] = [:]
    for box in diagram.boxes where box.part == .state {
      shapes[chart[StateID(box.state)].kind] = box.shape
    }
    #expect(Set(shapes.keys) == Set(StateKind.allCases), "the chart has a state of every kind")
    #expect(Set(shapes.values).count == StateKind.allCases.count, "\(shapes)")
    #expect(!shapes.values.contains(.join) && !shapes.values.contains(.end))
  }

  @Test func eachKindsShapeInMermaid() throws {
    expectText(
      try DiagramKindCharts.everyKind().mermaidDescription, DiagramKindCharts.everyKindMermaid)
  }

  @Test func eachKindsShapeInDOT() throws {
    expectText(try DiagramKindCharts.everyKind().dotDescription, DiagramKindCharts.everyKindDOT)
  }

  @Test func subflowsMapsAndWaitsHaveShapesOfTheirOwn() throws {
    let chart = try DiagramKindCharts.kinds()
    expectText(chart.mermaidDescription, DiagramKindCharts.kindsMermaid)
    expectText(chart.dotDescription, DiagramKindCharts.kindsDOT)
  }

  @Test func aRunEndsAtAnEndMarkAndABranchAtItsJoinBar() throws {
    let chart = try DiagramKindCharts.finals()
    expectText(chart.mermaidDescription, DiagramKindCharts.finalsMermaid)
    expectText(chart.dotDescription, DiagramKindCharts.finalsDOT)
  }

  @Test func prerequisitesAreArrowsBetweenBranches() throws {
    let chart = try DiagramKindCharts.prerequisites()
    expectText(chart.mermaidDescription, DiagramKindCharts.prerequisitesMermaid)
    expectText(chart.dotDescription, DiagramKindCharts.prerequisitesDOT)
  }

  @Test func modifiedStatesShowTheirTimeoutAndRetriesAndCatchRoutes() throws {
    let chart = try DiagramKindCharts.modified()
    expectText(chart.mermaidDescription, DiagramKindCharts.modifiedMermaid)
    expectText(chart.dotDescription, DiagramKindCharts.modifiedDOT)
  }

  @Test func aSubflowsRecordLabelEscapesWhatARecordReads() throws {
    let chart = try DiagramKindCharts.awkwardSubflow()
    expectText(chart.mermaidDescription, DiagramKindCharts.awkwardSubflowMermaid)
    expectText(chart.dotDescription, DiagramKindCharts.awkwardSubflowDOT)
  }

  /// The Diagrams article's example of a modified state prints what the article shows.
  @Test func diagramsArticleShowsTheCheckoutsMermaidUnedited() throws {
    struct Order: Sendable { var isPaid = false }
    // swift-format-ignore
    let checkout = try Flowchart<Order> {
      Action("Charge card") { order in order.isPaid = true }
        .timeout(.seconds(5))
        .retry(3, backoff: .exponential(initial: .milliseconds(100), maximum: .seconds(2)))
        .catch(goTo: "Report failure")
      Action("Ship", isFinal: true)
      Action("Report failure", isFinal: true)
    }
    let article = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Sources/Flowchart/Documentation.docc/Diagrams.md"),
      encoding: .utf8)
    let marker = "print(checkout.mermaidDescription)\n```\n\n```text\n"
    let start = try #require(article.range(of: marker), "Diagrams.md has no checkout example")
    let end = try #require(article[start.upperBound...].range(of: "```\n"))
    expectText(String(article[start.upperBound..<end.lowerBound]), checkout.mermaidDescription)
  }

  @Test(arguments: [
    ("plain", "plain"),
    ("Check again", "Check\\ again"),
    ("{x} | <y>", "\\{x\\}\\ \\|\\ \\<y\\>"),
    ("a\\\\nb", "a\\\\nb"),
  ])
  func dotRecordTextEscapesARecordsSyntaxAndSpaces(text: String, escaped: String) {
    #expect(Diagram.dotRecordText(text) == escaped)
  }

  @Test(.enabled(if: GraphvizDot.path != nil || GraphvizDot.isCI, "needs Graphviz's dot"))
  func graphvizReadsTheirDOT() throws {
    guard let dot = GraphvizDot.path else {
      Issue.record("Graphviz's dot is not on PATH; .ci/run installs it with apt-get.")
      return
    }
    for (name, chart) in try DiagramKindCharts.all() {
      let (status, errors) = try GraphvizDot.render(chart.dotDescription, with: dot)
      #expect(status == 0, "dot failed on the chart '\(name)': \(errors)")
      #expect(errors.isEmpty, "dot warned about the chart '\(name)': \(errors)")
    }
  }

  /// Every line of every test chart's Mermaid is one of the forms of Mermaid's flowchart
  /// grammar the writer uses (the node shapes, the two arrows, `classDef`, `class` and
  /// `linkStyle`), each label is one quoted string, and each `linkStyle` names written links.
  @Test func everyMermaidLineIsAFormOfMermaidsFlowchartSyntax() throws {
    let label = #""[^"]*""#
    let id = #"s[0-9]+(_join|_end)?"#
    let forms = try [
      #"\#(id)\[\#(label)\]"#, #"\#(id)\{\#(label)\}"#, #"\#(id)\{\{\#(label)\}\}"#,
      #"\#(id)\[\[\#(label)\]\]"#, #"\#(id)\[/\#(label)/\]"#, #"\#(id)\[/\#(label)\\\]"#,
      #"\#(id)\(\(\(" "\)\)\)"#, #"\#(id)\(\[\#(label)\]\)"#,
      #"\#(id) (-->|-\.->)(\|\#(label)\|)? \#(id)"#,
      #"classDef bar fill:black,stroke:black,color:white"#, #"class \#(id)(,\#(id))* bar"#,
      #"linkStyle [0-9]+(,[0-9]+)* stroke:red,color:red"#,
    ].map { try Regex("  " + $0) }
    for (name, chart) in try DiagramKindCharts.all() + DiagramCharts.all() {
      let lines = chart.mermaidDescription.split(separator: "\n")
      #expect(lines.first == "flowchart TD")
      for line in lines.dropFirst() {
        #expect(forms.contains { line.wholeMatch(of: $0) != nil }, "\(name): \(line)")
      }
      let links = lines.filter { $0.contains("->") }.count
      for line in lines where line.hasPrefix("  linkStyle ") {
        let indices = line.split(separator: " ")[1].split(separator: ",").compactMap { Int($0) }
        #expect(indices.allSatisfy { $0 < links }, "\(name): \(line)")
      }
    }
  }

  /// An end mark follows only the states where the run ends: the top level's final states
  /// and the join bar of a final dispatch there, never a final state inside a branch.
  @Test func onlyTheTopLevelsFinalStatesHaveAnEndMark() throws {
    let chart = try DiagramKindCharts.finals()
    let diagram = Diagram(graph: chart.graph)
    let marked = diagram.boxes.filter { $0.shape == .end }.map { chart[StateID($0.state)].name }
    #expect(marked == ["Ship", "Cancel"])
    let toJoin = diagram.arrows.filter { $0.to.part == .join }.map {
      chart[StateID($0.from.state)].name
    }
    #expect(toJoin == ["Reserve stock", "Charge card", "Ask for another", "Refund", "Restock"])
    let fromCancel = diagram.arrows.filter { $0.to == Diagram.End(state: 7, part: .end) }
    #expect(fromCancel.map(\.from) == [Diagram.End(state: 7, part: .join)])
  }
}

/// The charts `DiagramKindsTests` draws, and their diagrams.
enum DiagramKindCharts {
  /// Every chart, by name, for Graphviz to read.
  static func all() throws -> [(String, Flowchart<Switches>)] {
    [
      ("every kind", try everyKind()), ("kinds", try kinds()), ("finals", try finals()),
      ("prerequisites", try prerequisites()), ("modified", try modified()),
      ("awkward subflow", try awkwardSubflow()),
    ]
  }

  /// A state of every kind: a waiting state, a condition, a multiple condition, actions, a
  /// dispatch, a subflow, a map and a delay.
  static func everyKind() throws -> Flowchart<Switches> {
    let inner = try inner()
    // swift-format-ignore
    return try Flowchart<Switches> {
      Wait("Switch sent", for: Bool.self) { switches, isOn in switches.isOn = isOn }
      Condition("On?") { $0.isOn } yes: {
        MultipleCondition("Which word?") { $0.word } exits: {
          Case("go") { Action("Go") }
          Default { Action("Stay", isFinal: true) }
        }
      } no: {
        Action("Off", isFinal: true)
      }
      Dispatch("Both") {
        Branch { Subflow("Check", isFinal: true, running: inner, context: .whole) }
        Branch {
          Map("Each word", isFinal: true, over: { [$0] }, running: inner) { _, _ in }
        }
      }
      Delay("Cool down", for: .seconds(30))
      Action("Done", isFinal: true)
    }
  }

  /// Final states at the top level and in branches, and a final dispatch: only where the
  /// run ends is there an end mark.
  static func finals() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Dispatch("Fulfil") {
        Branch("Stock") { Action("Reserve stock", isFinal: true) }
        Branch("Card") {
          Condition("Card valid?") { $0.isOn } yes: {
            Action("Charge card", isFinal: true)
          } no: {
            Action("Ask for another", isFinal: true)
          }
        }
      }
      Condition("Approved?") { $0.isOn } yes: {
        Action("Ship", isFinal: true)
      } no: {
        Dispatch("Cancel", isFinal: true) {
          Branch { Action("Refund", isFinal: true) }
          Branch { Action("Restock", isFinal: true) }
        }
      }
    }
  }

  /// A subflow, whose DOT label is a record, named with what a record label must escape.
  static func awkwardSubflow() throws -> Flowchart<Switches> {
    let inner = try inner()
    // swift-format-ignore
    return try Flowchart<Switches> {
      Subflow("Say \"hi\" <b>|{x}\\N  two  spaces", isFinal: true, running: inner, context: .whole)
        .retry(1)
    }
  }

  /// States with a timeout, retries and catch routes, one of them a subflow (whose DOT label
  /// is a record) and one final.
  static func modified() throws -> Flowchart<Switches> {
    struct Offline: Error {}
    let inner = try inner()
    // swift-format-ignore
    return try Flowchart<Switches> {
      Action("Charge card") { _ in }
        .timeout(.seconds(5))
        .retry(3, backoff: .exponential(initial: .milliseconds(100), maximum: .seconds(2)))
        .catch(Offline.self, goTo: "Use cache")
        .catch(goTo: "Give up")
      Subflow("Check {card}", running: inner, context: .whole)
        .retry(2, on: Offline.self)
        .catch(goTo: "Give up")
      Action("Done", isFinal: true).timeout(.milliseconds(250))
      Action("Use cache", isFinal: true)
      Action("Give up", isFinal: true)
    }
  }

  static func inner() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Condition("On?", isFinal: true) { $0.isOn }
    }
  }

  static func kinds() throws -> Flowchart<Switches> {
    let inner = try inner()
    // swift-format-ignore
    return try Flowchart<Switches> {
      Wait("Switch sent", for: Bool.self) { switches, isOn in switches.isOn = isOn }
      Subflow("Check", running: inner, context: .whole) {
        Map("Each word", over: { [$0] }, running: inner, maxConcurrency: 2) { _, _ in }
      } no: {
        Action("Off", isFinal: true)
      }
      Subflow("Check again", isFinal: true, running: inner, context: .whole)
    }
  }

  static func prerequisites() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Dispatch("Order", maxConcurrency: 1) {
        Branch("Create") { Action("Create project", isFinal: true) }
        Branch("Upload", after: ["Create"]) { Action("Upload photo", isFinal: true) }
        Branch("Notify", after: ["Create", "Upload"]) { Action("Send mail", isFinal: true) }
      }
      Action("Done", isFinal: true)
    }
  }

  /// The Mermaid of ``everyKind()``.
  static let everyKindMermaid = #"""
    flowchart TD
      s0[/"Switch sent"/]
      s1{"On?"}
      s2{{"Which word?"}}
      s3["Go"]
      s4["Stay"]
      s4_end(((" ")))
      s5["Off"]
      s5_end(((" ")))
      s6["Both"]
      s6_join[" "]
      s7[["Check"]]
      s8[/"Each word"\]
      s9(["Cool down<br>[for 30s]"])
      s10["Done"]
      s10_end(((" ")))
      s0 --> s1
      s1 -->|"yes"| s2
      s1 -->|"no"| s5
      s2 -->|"go"| s3
      s2 -->|"default"| s4
      s3 --> s6
      s4 --> s4_end
      s5 --> s5_end
      s6 --> s7
      s6 --> s8
      s6_join --> s9
      s7 --> s6_join
      s8 --> s6_join
      s9 --> s10
      s10 --> s10_end
      classDef bar fill:black,stroke:black,color:white
      class s6,s6_join bar

    """#

  /// The DOT of ``everyKind()``.
  static let everyKindDOT = #"""
    digraph {
      node [shape=box];
      s0 [label="Switch sent", shape=parallelogram];
      s1 [label="On?", shape=diamond];
      s2 [label="Which word?", shape=hexagon];
      s3 [label="Go"];
      s4 [label="Stay"];
      s4_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s5 [label="Off"];
      s5_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s6 [label="Both", style=filled, fillcolor=black, fontcolor=white, height=0.3];
      s6_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
      s7 [label="|Check|", shape=record];
      s8 [label="Each word", shape=trapezium];
      s9 [label="Cool down\n[for 30s]", shape=oval];
      s10 [label="Done"];
      s10_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s0 -> s1;
      s1 -> s2 [label="yes"];
      s1 -> s5 [label="no"];
      s2 -> s3 [label="go"];
      s2 -> s4 [label="default"];
      s3 -> s6;
      s4 -> s4_end;
      s5 -> s5_end;
      s6 -> s7;
      s6 -> s8;
      s6_join -> s9;
      s7 -> s6_join;
      s8 -> s6_join;
      s9 -> s10;
      s10 -> s10_end;
    }

    """#

  /// The Mermaid of ``kinds()``.
  static let kindsMermaid = #"""
    flowchart TD
      s0[/"Switch sent"/]
      s1[["Check"]]
      s2[/"Each word"\]
      s3["Off"]
      s3_end(((" ")))
      s4[["Check again"]]
      s4_end(((" ")))
      s0 --> s1
      s1 -->|"yes"| s2
      s1 -->|"no"| s3
      s2 --> s4
      s3 --> s3_end
      s4 --> s4_end

    """#

  /// The DOT of ``kinds()``.
  static let kindsDOT = #"""
    digraph {
      node [shape=box];
      s0 [label="Switch sent", shape=parallelogram];
      s1 [label="|Check|", shape=record];
      s2 [label="Each word", shape=trapezium];
      s3 [label="Off"];
      s3_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s4 [label="|Check\ again|", shape=record];
      s4_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s0 -> s1;
      s1 -> s2 [label="yes"];
      s1 -> s3 [label="no"];
      s2 -> s4;
      s3 -> s3_end;
      s4 -> s4_end;
    }

    """#

  /// The Mermaid of ``finals()``.
  static let finalsMermaid = #"""
    flowchart TD
      s0["Fulfil"]
      s0_join[" "]
      s1["Reserve stock"]
      s2{"Card valid?"}
      s3["Charge card"]
      s4["Ask for another"]
      s5{"Approved?"}
      s6["Ship"]
      s6_end(((" ")))
      s7["Cancel"]
      s7_join[" "]
      s7_end(((" ")))
      s8["Refund"]
      s9["Restock"]
      s0 -->|"Stock"| s1
      s0 -->|"Card"| s2
      s0_join --> s5
      s1 --> s0_join
      s2 -->|"yes"| s3
      s2 -->|"no"| s4
      s3 --> s0_join
      s4 --> s0_join
      s5 -->|"yes"| s6
      s5 -->|"no"| s7
      s6 --> s6_end
      s7 --> s8
      s7 --> s9
      s7_join --> s7_end
      s8 --> s7_join
      s9 --> s7_join
      classDef bar fill:black,stroke:black,color:white
      class s0,s0_join,s7,s7_join bar

    """#

  /// The DOT of ``finals()``.
  static let finalsDOT = #"""
    digraph {
      node [shape=box];
      s0 [label="Fulfil", style=filled, fillcolor=black, fontcolor=white, height=0.3];
      s0_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
      s1 [label="Reserve stock"];
      s2 [label="Card valid?", shape=diamond];
      s3 [label="Charge card"];
      s4 [label="Ask for another"];
      s5 [label="Approved?", shape=diamond];
      s6 [label="Ship"];
      s6_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s7 [label="Cancel", style=filled, fillcolor=black, fontcolor=white, height=0.3];
      s7_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
      s7_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s8 [label="Refund"];
      s9 [label="Restock"];
      s0 -> s1 [label="Stock"];
      s0 -> s2 [label="Card"];
      s0_join -> s5;
      s1 -> s0_join;
      s2 -> s3 [label="yes"];
      s2 -> s4 [label="no"];
      s3 -> s0_join;
      s4 -> s0_join;
      s5 -> s6 [label="yes"];
      s5 -> s7 [label="no"];
      s6 -> s6_end;
      s7 -> s8;
      s7 -> s9;
      s7_join -> s7_end;
      s8 -> s7_join;
      s9 -> s7_join;
    }

    """#

  /// The Mermaid of ``prerequisites()``.
  static let prerequisitesMermaid = #"""
    flowchart TD
      s0["Order"]
      s0_join[" "]
      s1["Create project"]
      s2["Upload photo"]
      s3["Send mail"]
      s4["Done"]
      s4_end(((" ")))
      s0 -->|"Create"| s1
      s0 -->|"Upload"| s2
      s0 -->|"Notify"| s3
      s0_join --> s4
      s1 -.->|"before"| s2
      s1 -.->|"before"| s3
      s2 -.->|"before"| s3
      s1 --> s0_join
      s2 --> s0_join
      s3 --> s0_join
      s4 --> s4_end
      classDef bar fill:black,stroke:black,color:white
      class s0,s0_join bar

    """#

  /// The DOT of ``prerequisites()``.
  static let prerequisitesDOT = #"""
    digraph {
      node [shape=box];
      s0 [label="Order", style=filled, fillcolor=black, fontcolor=white, height=0.3];
      s0_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
      s1 [label="Create project"];
      s2 [label="Upload photo"];
      s3 [label="Send mail"];
      s4 [label="Done"];
      s4_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s0 -> s1 [label="Create"];
      s0 -> s2 [label="Upload"];
      s0 -> s3 [label="Notify"];
      s0_join -> s4;
      s1 -> s2 [label="before", style=dashed, arrowhead=empty];
      s1 -> s3 [label="before", style=dashed, arrowhead=empty];
      s2 -> s3 [label="before", style=dashed, arrowhead=empty];
      s1 -> s0_join;
      s2 -> s0_join;
      s3 -> s0_join;
      s4 -> s4_end;
    }

    """#

  /// The Mermaid of ``modified()``.
  static let modifiedMermaid = #"""
    flowchart TD
      s0["Charge card<br>[timeout 5s, retry ×3 (exponential 0.1s×2…2s)]"]
      s1[["Check {card}<br>[retry ×2 (on Offline)]"]]
      s2["Done<br>[timeout 0.25s]"]
      s2_end(((" ")))
      s3["Use cache"]
      s3_end(((" ")))
      s4["Give up"]
      s4_end(((" ")))
      s0 --> s1
      s0 -.->|"catch Offline"| s3
      s0 -.->|"catch"| s4
      s1 --> s2
      s1 -.->|"catch"| s4
      s2 --> s2_end
      s3 --> s3_end
      s4 --> s4_end
      linkStyle 1,2,4 stroke:red,color:red

    """#

  /// The DOT of ``modified()``.
  static let modifiedDOT = #"""
    digraph {
      node [shape=box];
      s0 [label="Charge card\n[timeout 5s, retry ×3 (exponential 0.1s×2…2s)]"];
      s1 [label="|Check\ \{card\}\n[retry\ ×2\ (on\ Offline)]|", shape=record];
      s2 [label="Done\n[timeout 0.25s]"];
      s2_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s3 [label="Use cache"];
      s3_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s4 [label="Give up"];
      s4_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s0 -> s1;
      s0 -> s3 [label="catch Offline", style=dashed, color=red, fontcolor=red];
      s0 -> s4 [label="catch", style=dashed, color=red, fontcolor=red];
      s1 -> s2;
      s1 -> s4 [label="catch", style=dashed, color=red, fontcolor=red];
      s2 -> s2_end;
      s3 -> s3_end;
      s4 -> s4_end;
    }

    """#

  /// The Mermaid of ``awkwardSubflow()``.
  static let awkwardSubflowMermaid = #"""
    flowchart TD
      s0[["Say #34;hi#34; #60;b#62;#124;{x}\N  two  spaces<br>[retry ×1]"]]
      s0_end(((" ")))
      s0 --> s0_end

    """#

  /// The DOT of ``awkwardSubflow()``.
  static let awkwardSubflowDOT = #"""
    digraph {
      node [shape=box];
      s0 [label="|Say\ \"hi\"\ \<b\>\|\{x\}\\N\ \ two\ \ spaces\n[retry\ ×1]|", shape=record];
      s0_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
      s0 -> s0_end;
    }

    """#
}
