import Foundation
import Testing

@testable import Flowchart

/// The Mermaid and DOT diagrams: golden text for each kind of state, each exit label,
/// cycles, joins, nested dispatches and names that need escaping; and Graphviz's `dot`
/// reading the DOT of every chart here.
struct DiagramTests {
  // MARK: - Kinds and labels

  @Test func healthWorkflowDrawsDecisionsAsDiamondsAndMarksFinalStates() throws {
    let chart = try DiagramCharts.health()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0{"Willing to exercise?"}
        s1["Lift weights"]
        s2["Do sit-ups"]
        s2_end(((" ")))
        s3{"Injured?"}
        s3_end(((" ")))
        s0 -->|"yes"| s1
        s0 -->|"no"| s3
        s1 --> s2
        s2 --> s2_end
        s3 --> s3_end

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Willing to exercise?", shape=diamond];
        s1 [label="Lift weights"];
        s2 [label="Do sit-ups"];
        s2_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s3 [label="Injured?", shape=diamond];
        s3_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s0 -> s1 [label="yes"];
        s0 -> s3 [label="no"];
        s1 -> s2;
        s2 -> s2_end;
        s3 -> s3_end;
      }

      """#)
  }

  @Test func multipleConditionLabelsEachArrowWithItsKeyAndDefault() throws {
    let chart = try DiagramCharts.keys()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0{{"Which plan?"}}
        s1["Invite team"]
        s2["Show ads"]
        s2_end(((" ")))
        s3{{"Command?"}}
        s4["Nothing said"]
        s4_end(((" ")))
        s5["Give up"]
        s5_end(((" ")))
        s0 -->|"team"| s1
        s0 -->|"free"| s2
        s0 -->|"pro"| s3
        s1 --> s3
        s2 --> s2_end
        s3 -.->|"retry"| s0
        s3 -->|"#34;#34;"| s4
        s3 -->|"default"| s5
        s4 --> s4_end
        s5 --> s5_end

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Which plan?", shape=hexagon];
        s1 [label="Invite team"];
        s2 [label="Show ads"];
        s2_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s3 [label="Command?", shape=hexagon];
        s4 [label="Nothing said"];
        s4_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s5 [label="Give up"];
        s5_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s0 -> s1 [label="team"];
        s0 -> s2 [label="free"];
        s0 -> s3 [label="pro"];
        s1 -> s3;
        s2 -> s2_end;
        s3 -> s0 [label="retry", style=dashed, constraint=false];
        s3 -> s4 [label="\"\""];
        s3 -> s5 [label="default"];
        s4 -> s4_end;
        s5 -> s5_end;
      }

      """#)
  }

  @Test func dispatchIsAForkBarAndAJoinBarWithItsBranchesBetween() throws {
    let chart = try DiagramCharts.dispatch()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0["Download"]
        s0_join[" "]
        s1["Avatar"]
        s2["Avatar saved"]
        s3{"Cached?"}
        s4["Use cache"]
        s5["Fetch feed"]
        s6["Save"]
        s6_join[" "]
        s6_end(((" ")))
        s7["Save avatar"]
        s8["Save feed"]
        s0 -->|"Pictures"| s1
        s0 --> s3
        s0_join --> s6
        s1 --> s2
        s2 --> s0_join
        s3 -->|"yes"| s4
        s3 -->|"no"| s5
        s4 --> s0_join
        s5 --> s0_join
        s6 --> s7
        s6 --> s8
        s6_join --> s6_end
        s7 --> s6_join
        s8 --> s6_join
        classDef bar fill:black,stroke:black,color:white
        class s0,s0_join,s6,s6_join bar

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Download", style=filled, fillcolor=black, fontcolor=white, height=0.3];
        s0_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
        s1 [label="Avatar"];
        s2 [label="Avatar saved"];
        s3 [label="Cached?", shape=diamond];
        s4 [label="Use cache"];
        s5 [label="Fetch feed"];
        s6 [label="Save", style=filled, fillcolor=black, fontcolor=white, height=0.3];
        s6_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
        s6_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s7 [label="Save avatar"];
        s8 [label="Save feed"];
        s0 -> s1 [label="Pictures"];
        s0 -> s3;
        s0_join -> s6;
        s1 -> s2;
        s2 -> s0_join;
        s3 -> s4 [label="yes"];
        s3 -> s5 [label="no"];
        s4 -> s0_join;
        s5 -> s0_join;
        s6 -> s7;
        s6 -> s8;
        s6_join -> s6_end;
        s7 -> s6_join;
        s8 -> s6_join;
      }

      """#)
  }

  @Test func nestedDispatchEndsItsBranchAtTheOuterJoinBar() throws {
    let chart = try DiagramCharts.nestedDispatch()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0["Sync"]
        s0_join[" "]
        s1["Sync media"]
        s1_join[" "]
        s2["Photos"]
        s3["Videos"]
        s4["Sync text"]
        s4_join[" "]
        s5["Notes"]
        s6["Index"]
        s7["Done"]
        s7_end(((" ")))
        s0 --> s1
        s0 --> s4
        s0_join --> s7
        s1 --> s2
        s1 --> s3
        s1_join --> s0_join
        s2 --> s1_join
        s3 --> s1_join
        s4 --> s5
        s4_join --> s6
        s5 --> s4_join
        s6 --> s0_join
        s7 --> s7_end
        classDef bar fill:black,stroke:black,color:white
        class s0,s0_join,s1,s1_join,s4,s4_join bar

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Sync", style=filled, fillcolor=black, fontcolor=white, height=0.3];
        s0_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
        s1 [label="Sync media", style=filled, fillcolor=black, fontcolor=white, height=0.3];
        s1_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
        s2 [label="Photos"];
        s3 [label="Videos"];
        s4 [label="Sync text", style=filled, fillcolor=black, fontcolor=white, height=0.3];
        s4_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
        s5 [label="Notes"];
        s6 [label="Index"];
        s7 [label="Done"];
        s7_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s0 -> s1;
        s0 -> s4;
        s0_join -> s7;
        s1 -> s2;
        s1 -> s3;
        s1_join -> s0_join;
        s2 -> s1_join;
        s3 -> s1_join;
        s4 -> s5;
        s4_join -> s6;
        s5 -> s4_join;
        s6 -> s0_join;
        s7 -> s7_end;
      }

      """#)
  }

  @Test func readmeShowsTheHealthWorkflowsMermaidTextUnedited() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(readme.range(of: "```mermaid\n"), "README.md has no Mermaid block")
    let end = try #require(readme[start.upperBound...].range(of: "```\n"))
    expectText(
      String(readme[start.upperBound..<end.lowerBound]),
      try DiagramCharts.health().mermaidDescription)
  }

  // MARK: - Cycles and joins

  @Test func arrowThatClosesACycleIsDrawnBack() throws {
    let chart = try DiagramCharts.cycle()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0["Fetch"]
        s1{"Succeeded?"}
        s2["Done"]
        s2_end(((" ")))
        s3["Wait"]
        s0 --> s1
        s1 -->|"yes"| s2
        s1 -->|"no"| s3
        s2 --> s2_end
        s3 -.-> s0

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Fetch"];
        s1 [label="Succeeded?", shape=diamond];
        s2 [label="Done"];
        s2_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s3 [label="Wait"];
        s0 -> s1;
        s1 -> s2 [label="yes"];
        s1 -> s3 [label="no"];
        s2 -> s2_end;
        s3 -> s0 [style=dashed, constraint=false];
      }

      """#)
  }

  @Test func conditionThatLoopsOnItselfHasAnArrowBackToItself() throws {
    let chart = try DiagramCharts.selfLoop()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0{"Ready?"}
        s1["Go"]
        s1_end(((" ")))
        s0 -->|"yes"| s1
        s0 -.->|"no"| s0
        s1 --> s1_end

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Ready?", shape=diamond];
        s1 [label="Go"];
        s1_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s0 -> s1 [label="yes"];
        s0 -> s0 [label="no", style=dashed, constraint=false];
        s1 -> s1_end;
      }

      """#)
  }

  @Test func joinOfTwoPathsIsNotAnArrowBack() throws {
    let chart = try DiagramCharts.join()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0{"Logged in?"}
        s1["Load profile"]
        s2["Show home"]
        s3["Done"]
        s3_end(((" ")))
        s0 -->|"yes"| s1
        s0 -->|"no"| s2
        s1 --> s2
        s2 --> s3
        s3 --> s3_end

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Logged in?", shape=diamond];
        s1 [label="Load profile"];
        s2 [label="Show home"];
        s3 [label="Done"];
        s3_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s0 -> s1 [label="yes"];
        s0 -> s2 [label="no"];
        s1 -> s2;
        s2 -> s3;
        s3 -> s3_end;
      }

      """#)
  }

  @Test func entryPointTheStartDoesNotReachIsDrawnToo() throws {
    let chart = try DiagramCharts.entryPoint()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0["Begin"]
        s1["End"]
        s1_end(((" ")))
        s2["Resume"]
        s0 --> s1
        s1 --> s1_end
        s2 --> s1

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Begin"];
        s1 [label="End"];
        s1_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s2 [label="Resume"];
        s0 -> s1;
        s1 -> s1_end;
        s2 -> s1;
      }

      """#)
  }

  // MARK: - Escaping

  @Test func namesAndKeysAreEscapedForEachSyntax() throws {
    let chart = try DiagramCharts.awkwardNames()
    expectText(
      chart.mermaidDescription,
      #"""
      flowchart TD
        s0{{"Say #34;hi#34;#59; [x] {y} (z)"}}
        s1["#35;1 #96;code#96; #124; pipe"]
        s2["a\nb \N"]
        s3["Café 😀 字"]
        s4["#34;zero\u{200B}width#34;"]
        s5["#34; padded #34;"]
        s6["#64258;°°1#182;ß"]
        s6_join[" "]
        s6_end(((" ")))
        s7["end"]
        s0 -->|"#60;b#62;#38;amp#59;#60;/b#62;"| s1
        s0 -->|"#34;x: y#34;"| s2
        s0 -->|"#34;#34;"| s3
        s0 -->|"#34;line\nbreak#34;"| s4
        s0 -->|"default"| s5
        s1 --> s6
        s2 --> s6
        s3 --> s6
        s4 --> s6
        s5 --> s6
        s6 -->|"-#62; branch #60;-"| s7
        s6_join --> s6_end
        s7 --> s6_join
        classDef bar fill:black,stroke:black,color:white
        class s6,s6_join bar

      """#)
    expectText(
      chart.dotDescription,
      #"""
      digraph {
        node [shape=box];
        s0 [label="Say \"hi\"; [x] {y} (z)", shape=hexagon];
        s1 [label="#1 `code` | pipe"];
        s2 [label="a\\nb \\N"];
        s3 [label="Café 😀 字"];
        s4 [label="\"zero\\u{200B}width\""];
        s5 [label="\" padded \""];
        s6 [label="ﬂ°°1¶ß", style=filled, fillcolor=black, fontcolor=white, height=0.3];
        s6_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5];
        s6_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
        s7 [label="end"];
        s0 -> s1 [label="<b>&amp;amp;</b>"];
        s0 -> s2 [label="\"x: y\""];
        s0 -> s3 [label="\"\""];
        s0 -> s4 [label="\"line\\nbreak\""];
        s0 -> s5 [label="default"];
        s1 -> s6;
        s2 -> s6;
        s3 -> s6;
        s4 -> s6;
        s5 -> s6;
        s6 -> s7 [label="-> branch <-"];
        s6_join -> s6_end;
        s7 -> s6_join;
      }

      """#)
  }

  @Test(arguments: [
    ("plain", "plain"),
    ("say \"hi\"", "say #34;hi#34;"),
    ("#1; <b>&amp;</b>", "#35;1#59; #60;b#62;#38;amp#59;#60;/b#62;"),
    ("`code` | pipe", "#96;code#96; #124; pipe"),
    ("[x] {y} (z)", "[x] {y} (z)"),
    ("a\\nb", "a\\nb"),
    ("caf\u{E9} \u{1F600}", "caf\u{E9} \u{1F600}"),
    ("\u{FB02}\u{B0}\u{B0}1\u{B6}\u{DF}", "#64258;\u{B0}\u{B0}1#182;\u{DF}"),
  ])
  func mermaidTextWritesSyntaxCharactersAsEntityCodes(text: String, escaped: String) {
    #expect(Diagram.mermaidText(text) == escaped)
  }

  @Test(arguments: [
    ("plain", "plain"),
    ("say \"hi\"", "say \\\"hi\\\""),
    ("a\\nb \\N \\", "a\\\\nb \\\\N \\\\"),
    ("<b>&amp;</b> #1; [x] {y}", "<b>&amp;amp;</b> #1; [x] {y}"),
    ("caf\u{E9} \u{1F600}", "caf\u{E9} \u{1F600}"),
  ])
  func dotTextEscapesQuotesBackslashesAndAmpersands(text: String, escaped: String) {
    #expect(Diagram.dotText(text) == escaped)
  }

  // MARK: - Size

  @Test func longChainDrawsWithoutGrowingTheStack() throws {
    let count = 100_000
    // swift-format-ignore
    let chart = try Flowchart<Switches> {
      for index in 0..<count {
        Action("Step \(index)", isFinal: index == count - 1)
      }
    }
    let mermaid = chart.mermaidDescription
    #expect(mermaid.hasSuffix("  s99998 --> s99999\n  s99999 --> s99999_end\n"))
    let dot = chart.dotDescription
    #expect(dot.hasSuffix("  s99998 -> s99999;\n  s99999 -> s99999_end;\n}\n"))
  }

  // MARK: - Graphviz

  /// Runs Graphviz's `dot` on the DOT of every chart of this suite, so that a syntax error
  /// fails. Where `dot` is not installed the test is skipped, and says so, except in CI
  /// (where `CI` is set in the environment, and `.ci/run` installs Graphviz): there a
  /// missing `dot` fails it.
  @Test(.enabled(if: GraphvizDot.path != nil || GraphvizDot.isCI, "needs Graphviz's dot"))
  func graphvizReadsTheDOTOfEveryChart() throws {
    guard let dot = GraphvizDot.path else {
      Issue.record("Graphviz's dot is not on PATH; .ci/run installs it with apt-get.")
      return
    }
    for (name, chart) in try DiagramCharts.all() {
      let (status, errors) = try GraphvizDot.render(chart.dotDescription, with: dot)
      #expect(status == 0, "dot failed on the chart '\(name)': \(errors)")
      #expect(errors.isEmpty, "dot warned about the chart '\(name)': \(errors)")
    }
  }

  /// The check above can fail: `dot` rejects a label whose quote is not escaped.
  @Test(.enabled(if: GraphvizDot.path != nil || GraphvizDot.isCI, "needs Graphviz's dot"))
  func graphvizRejectsAnUnescapedQuote() throws {
    let dot = try #require(GraphvizDot.path, "Graphviz's dot is not on PATH")
    let (status, errors) = try GraphvizDot.render(
      "digraph {\n  s0 [label=\"a\"b\"];\n}\n", with: dot)
    #expect(status != 0)
    #expect(errors.contains("syntax error"))
  }
}

/// The charts the diagram tests draw.
enum DiagramCharts {
  /// Every chart, by name, for Graphviz to read.
  static func all() throws -> [(String, Flowchart<Switches>)] {
    [
      ("health", try health()), ("keys", try keys()), ("dispatch", try dispatch()),
      ("nested dispatch", try nestedDispatch()), ("cycle", try cycle()),
      ("self loop", try selfLoop()), ("join", try join()), ("entry point", try entryPoint()),
      ("awkward names", try awkwardNames()),
    ]
  }

  /// JASWorkflow's Health workflow, as the README declares it.
  static func health() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Condition("Willing to exercise?") { $0.isOn } yes: {
        Action("Lift weights")
        Action("Do sit-ups", isFinal: true)
      } no: {
        Condition("Injured?", isFinal: true) { $0.isOn }
      }
    }
  }

  /// A multiple condition over an enum, and one over strings with a default exit and an
  /// empty key.
  static func keys() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      MultipleCondition("Which plan?") { _ in Membership.free } exits: {
        Case(.team) { Action("Invite team") }
        Case(.free) { Action("Show ads", isFinal: true) }
        Case(.pro) {}
      }
      MultipleCondition("Command?") { $0.word } exits: {
        Case("retry") { GoTo("Which plan?") }
        Case("") { Action("Nothing said", isFinal: true) }
        Default { Action("Give up", isFinal: true) }
      }
    }
  }

  /// A dispatch with a named and an unnamed branch, one ending in a condition, then a
  /// final dispatch.
  static func dispatch() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Dispatch("Download") {
        Branch("Pictures") {
          Action("Avatar")
          Action("Avatar saved", isFinal: true)
        }
        Branch {
          Condition("Cached?") { $0.isOn } yes: {
            Action("Use cache", isFinal: true)
          } no: {
            Action("Fetch feed", isFinal: true)
          }
        }
      }
      Dispatch("Save", isFinal: true) {
        Branch { Action("Save avatar", isFinal: true) }
        Branch { Action("Save feed", isFinal: true) }
      }
    }
  }

  /// A dispatch inside a dispatch's branch: the inner one is final, so its join bar ends
  /// the outer branch.
  static func nestedDispatch() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Dispatch("Sync") {
        Branch {
          Dispatch("Sync media", isFinal: true) {
            Branch { Action("Photos", isFinal: true) }
            Branch { Action("Videos", isFinal: true) }
          }
        }
        Branch {
          Dispatch("Sync text") {
            Branch { Action("Notes", isFinal: true) }
          }
          Action("Index", isFinal: true)
        }
      }
      Action("Done", isFinal: true)
    }
  }

  /// A retry loop: the arrow from "Wait" back to "Fetch" closes the cycle.
  static func cycle() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Action("Fetch")
      Condition("Succeeded?") { $0.isOn } yes: {
        Action("Done", isFinal: true)
      } no: {
        Action("Wait")
        GoTo("Fetch")
      }
    }
  }

  /// A condition whose `no` exit leads to itself.
  static func selfLoop() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Condition("Ready?") { $0.isOn } yes: {
        Action("Go", isFinal: true)
      } no: {
        GoTo("Ready?")
      }
    }
  }

  /// Two paths that meet at "Show home": the second arrow to it is not an arrow back.
  static func join() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      Condition("Logged in?") { $0.isOn } yes: {
        Action("Load profile")
      } no: {
      }
      Action("Show home")
      Action("Done", isFinal: true)
    }
  }

  /// An entry point the start does not lead to, which leads back into the start's flow.
  static func entryPoint() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches>(entryPoints: ["Resume"]) {
      Action("Begin")
      Action("End", isFinal: true)
      Action("Resume")
      GoTo("End")
    }
  }

  /// Names and keys that hold what each syntax must escape.
  static func awkwardNames() throws -> Flowchart<Switches> {
    // swift-format-ignore
    try Flowchart<Switches> {
      MultipleCondition("Say \"hi\"; [x] {y} (z)") { $0.word } exits: {
        Case("<b>&amp;</b>") { Action("#1 `code` | pipe") }
        Case("x: y") { Action("a\\nb \\N") }
        Case("") { Action("Caf\u{E9} \u{1F600} \u{5B57}") }
        Case("line\nbreak") { Action("zero\u{200B}width") }
        Default { Action(" padded ") }
      }
      Dispatch("\u{FB02}\u{B0}\u{B0}1\u{B6}\u{DF}", isFinal: true) {
        Branch("-> branch <-") { Action("end", isFinal: true) }
      }
    }
  }
}

/// Graphviz's `dot`, found on `PATH`.
enum GraphvizDot {
  /// The path of `dot`, or `nil` when it is not installed.
  static let path: String? = {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    return directories.map { "\($0)/dot" }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }()

  /// Whether the tests run in CI, where a missing `dot` is a failure, not a reason to skip.
  static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

  /// Renders `text`, in the DOT language, as SVG; returns `dot`'s exit status and what it
  /// wrote to standard error.
  static func render(_ text: String, with dot: String) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: dot)
    process.arguments = ["-Tsvg", "-o", "/dev/null"]
    let input = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: message, as: UTF8.self))
  }
}
