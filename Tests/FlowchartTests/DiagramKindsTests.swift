import Foundation
import Testing

@testable import Flowchart

/// The diagrams of subflows, maps, waiting states and dispatch prerequisites: shapes of their
/// own and arrows that order branches, in both syntaxes; and Graphviz's `dot` reading them.
struct DiagramKindsTests {
  @Test func subflowsMapsAndWaitsHaveShapesOfTheirOwn() throws {
    let chart = try DiagramKindCharts.kinds()
    expectText(chart.mermaidDescription, DiagramKindCharts.kindsMermaid)
    expectText(chart.dotDescription, DiagramKindCharts.kindsDOT)
  }

  @Test func prerequisitesAreArrowsBetweenBranches() throws {
    let chart = try DiagramKindCharts.prerequisites()
    expectText(chart.mermaidDescription, DiagramKindCharts.prerequisitesMermaid)
    expectText(chart.dotDescription, DiagramKindCharts.prerequisitesDOT)
  }

  @Test func catchRoutesAreDashedArrowsNamingTheErrorType() throws {
    struct Offline: Error {}
    // swift-format-ignore
    let chart = try Flowchart<Switches> {
      Action("Fetch") { _ in }
        .catch(Offline.self, goTo: "Use cache") { _, _ in }
        .catch(goTo: "Give up") { _, _ in }
      Action("Done", isFinal: true)
      Action("Use cache", isFinal: true)
      Action("Give up", isFinal: true)
    }
    expectText(
      chart.mermaidDescription,
      """
      flowchart TD
        s0["Fetch"]
        s1["Done"]
        s2["Use cache"]
        s3["Give up"]
        s0 --> s1
        s0 -.->|"catch Offline"| s2
        s0 -.->|"catch"| s3
        classDef final stroke-width:4px
        class s1,s2,s3 final

      """)
    expectText(
      chart.dotDescription.split(separator: "\n").filter { $0.contains("->") }
        .joined(separator: "\n"),
      """
        s0 -> s1;
        s0 -> s2 [label="catch Offline", style=dashed, color=red, fontcolor=red];
        s0 -> s3 [label="catch", style=dashed, color=red, fontcolor=red];
      """)
  }

  @Test(.enabled(if: GraphvizDot.path != nil || GraphvizDot.isCI, "needs Graphviz's dot"))
  func graphvizReadsTheirDOT() throws {
    guard let dot = GraphvizDot.path else {
      Issue.record("Graphviz's dot is not on PATH; .ci/run installs it with apt-get.")
      return
    }
    for chart in [try DiagramKindCharts.kinds(), try DiagramKindCharts.prerequisites()] {
      let (status, errors) = try GraphvizDot.render(chart.dotDescription, with: dot)
      #expect(status == 0, "\(errors)")
      #expect(errors.isEmpty, "\(errors)")
    }
  }
}

/// The charts `DiagramKindsTests` draws, and their diagrams.
enum DiagramKindCharts {
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

  static let kindsMermaid = """
    flowchart TD
      s0[/"Switch sent"/]
      s1[["Check"]]
      s2{{"Each word"}}
      s3["Off"]
      s4[["Check again"]]
      s0 --> s1
      s1 -->|"yes"| s2
      s1 -->|"no"| s3
      s2 --> s4
      classDef final stroke-width:4px
      class s3,s4 final

    """

  static let kindsDOT = """
    digraph {
      node [shape=box];
      s0 [label="Switch sent", shape=parallelogram];
      s1 [label="Check", shape=box, peripheries=2];
      s2 [label="Each word", shape=hexagon];
      s3 [label="Off", peripheries=2];
      s4 [label="Check again", shape=box, peripheries=3];
      s0 -> s1;
      s1 -> s2 [label="yes"];
      s1 -> s3 [label="no"];
      s2 -> s4;
    }

    """

  static let prerequisitesMermaid = """
    flowchart TD
      s0["Order"]
      s0_join[" "]
      s1["Create project"]
      s2["Upload photo"]
      s3["Send mail"]
      s4["Done"]
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
      classDef final stroke-width:4px
      classDef bar fill:black,stroke:black,color:white
      class s1,s2,s3,s4 final
      class s0,s0_join bar

    """

  static let prerequisitesDOT = """
    digraph {
      node [shape=box];
      s0 [label="Order", style=filled, fillcolor=black, fontcolor=white, height=0.3];
      s0_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
      s1 [label="Create project", peripheries=2];
      s2 [label="Upload photo", peripheries=2];
      s3 [label="Send mail", peripheries=2];
      s4 [label="Done", peripheries=2];
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
    }

    """
}
