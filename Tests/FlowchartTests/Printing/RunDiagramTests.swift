import Foundation
import Testing

@testable import Flowchart

/// The context of the charts whose runs are drawn.
struct Trip: Sendable {
  var isBooked = true
  var visits = 0
}

/// What the failing branch throws.
struct SoldOut: Error {}

/// Charts whose runs the diagram draws, each timed by a manual clock so that the times in
/// the goldens are exact.
enum RunDiagramCharts {
  /// A loop taken twice, and a dispatch of three branches run one after another (each
  /// waits for the one before); with `failing`, the second branch throws.
  // swift-format-ignore
  static func trip(_ clock: ManualClock, failing: Bool = false) throws -> Flowchart<Trip> {
    try Flowchart<Trip> {
      Action("Plan") { trip in
        clock.advance(by: .milliseconds(100))
        trip.visits += 1
      }
      Condition("Booked?") { $0.visits >= 2 } yes: {
        Dispatch("Book", maxConcurrency: 1) {
          Branch("Hotel") {
            Action("Reserve room", isFinal: true) { _ in clock.advance(by: .milliseconds(200)) }
          }
          Branch("Flight", after: ["Hotel"]) {
            Action("Buy ticket", isFinal: true) { _ in
              clock.advance(by: .milliseconds(300))
              if failing { throw SoldOut() }
            }
          }
          Branch("Car", after: ["Flight"]) {
            Action("Rent car", isFinal: true)
          }
        }
        Action("Pack", isFinal: true)
      } no: {
        Condition("Give up?") { _ in false } yes: {
          Action("Cancel trip", isFinal: true)
        } no: {
          GoTo("Plan")
        }
      }
    }
  }
}

extension RunDiagramCharts {
  /// A state that waits until the run is cancelled.
  // swift-format-ignore
  static func approval(_ clock: ManualClock, started: Gate) throws -> Flowchart<Trip> {
    try Flowchart<Trip> {
      Action("Plan") { _ in clock.advance(by: .milliseconds(100)) }
      Action("Await approval") { _ in
        started.open()
        try await Task.sleep(for: .seconds(3_600))
      }
      Action("Book", isFinal: true)
    }
  }

  /// The overlay of a run of `chart` to its end, timed by `clock`.
  static func overlay(
    of chart: Flowchart<Trip>, clock: ManualClock
  ) async -> RunOverlay {
    let handle = chart.start(with: Trip(), clock: clock, isLogged: true)
    _ = try? await handle.result
    return RunOverlay(log: handle.log)
  }

  /// The overlay of a run of ``approval(_:)`` cancelled while it waits.
  static func cancelledOverlay() async throws -> (Flowchart<Trip>, RunOverlay) {
    let clock = ManualClock()
    let started = Gate()
    let chart = try approval(clock, started: started)
    let handle = chart.start(with: Trip(), clock: clock, isLogged: true)
    // Cancelled once the state's code runs, so that the reason is always the same.
    await started.wait()
    handle.cancel()
    _ = try? await handle.result
    return (chart, RunOverlay(log: handle.log))
  }

  /// The run named `name` of ``runs()``, with its chart.
  static func run(named name: String) async throws -> (Flowchart<Trip>, RunOverlay) {
    let (_, chart, run) = try #require(try await runs().first { $0.0 == name })
    return (chart, run)
  }

  /// The three runs the goldens draw, by name.
  static func runs() async throws -> [(String, Flowchart<Trip>, RunOverlay)] {
    let clock = ManualClock()
    let trip = try RunDiagramCharts.trip(clock)
    let finished = await overlay(of: trip, clock: clock)
    let failingClock = ManualClock()
    let failing = try RunDiagramCharts.trip(failingClock, failing: true)
    let failed = await overlay(of: failing, clock: failingClock)
    let (approval, cancelled) = try await cancelledOverlay()
    return [
      ("finished", trip, finished), ("failed in a branch", failing, failed),
      ("cancelled", approval, cancelled),
    ]
  }
}

/// A run drawn on its chart's diagram, in both syntaxes: golden text for a run that
/// finishes, one that fails in a dispatch branch and one cancelled; Graphviz reading each.
struct RunDiagramTests {
  /// A run that went round the loop once, then through every branch: each state with its visits and time, the arrows taken (the loop's twice), the branches' tally, and the state it never reached faded.
  @Test func drawsARunThatFinished() async throws {
    let (chart, run) = try await RunDiagramCharts.run(named: "finished")
    expectText(
      chart.mermaidDescription(showing: run),
      #"""
      flowchart TD
        s0["Plan<br>×2 · 0.200s"]
        s1{"Booked?<br>×2 · 0.000s"}
        s2["Book<br>×1 · 0.500s<br>3 finished · 0 failed · 0 skipped"]
        s2_join[" "]
        s3["Reserve room<br>×1 · 0.200s"]
        s4["Buy ticket<br>×1 · 0.300s"]
        s5["Rent car<br>×1 · 0.000s"]
        s6["Pack<br>×1 · 0.000s"]
        s6_end(((" ")))
        s7{"Give up?<br>×1 · 0.000s"}
        s8["Cancel trip"]
        s8_end(((" ")))
        s0 -->|"×2"| s1
        s1 -->|"yes"| s2
        s1 -->|"no"| s7
        s2 -->|"Hotel"| s3
        s2 -->|"Flight"| s4
        s2 -->|"Car"| s5
        s2_join --> s6
        s3 -.->|"before"| s4
        s4 -.->|"before"| s5
        s3 --> s2_join
        s4 --> s2_join
        s5 --> s2_join
        s6 --> s6_end
        s7 -->|"yes"| s8
        s7 -.->|"no"| s0
        s8 --> s8_end
        classDef bar fill:black,stroke:black,color:white
        class s2,s2_join bar
        classDef entered fill:#d8f0d8,stroke:#2e7d32,color:black
        classDef failed fill:#f8d0d0,stroke:#c62828,stroke-width:3px,color:black
        classDef cancelled fill:#fde9c8,stroke:#ef6c00,stroke-width:3px,color:black
        classDef unreached fill:#f4f4f4,stroke:#bbbbbb,color:#999999
        class s0,s1,s3,s4,s5,s6,s6_end,s7 entered
        class s8,s8_end unreached
        linkStyle 0,1,2,3,4,5,6,9,10,11,12,14 stroke:#2e7d32,stroke-width:3px
        linkStyle 13,15 stroke:#cccccc,color:#999999

      """#)
    expectText(
      chart.dotDescription(showing: run),
      #"""
      digraph {
        node [shape=box];
        s0 [label="Plan\n×2 · 0.200s", id="s0", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s1 [label="Booked?\n×2 · 0.000s", shape=diamond, id="s1", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s2 [label="Book\n×1 · 0.500s\n3 finished · 0 failed · 0 skipped", style=filled, fillcolor=black, fontcolor=white, height=0.3, id="s2", class="entered"];
        s2_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5, id="s2_join", class="entered"];
        s3 [label="Reserve room\n×1 · 0.200s", id="s3", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s4 [label="Buy ticket\n×1 · 0.300s", id="s4", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s5 [label="Rent car\n×1 · 0.000s", id="s5", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s6 [label="Pack\n×1 · 0.000s", id="s6", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s6_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true, id="s6_end", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s7 [label="Give up?\n×1 · 0.000s", shape=diamond, id="s7", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s8 [label="Cancel trip", id="s8", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s8_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true, id="s8_end", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s0 -> s1 [label="×2", color="#2e7d32", penwidth=2.5, class="taken"];
        s1 -> s2 [label="yes", color="#2e7d32", penwidth=2.5, class="taken"];
        s1 -> s7 [label="no", color="#2e7d32", penwidth=2.5, class="taken"];
        s2 -> s3 [label="Hotel", color="#2e7d32", penwidth=2.5, class="taken"];
        s2 -> s4 [label="Flight", color="#2e7d32", penwidth=2.5, class="taken"];
        s2 -> s5 [label="Car", color="#2e7d32", penwidth=2.5, class="taken"];
        s2_join -> s6 [color="#2e7d32", penwidth=2.5, class="taken"];
        s3 -> s4 [label="before", style=dashed, arrowhead=empty];
        s4 -> s5 [label="before", style=dashed, arrowhead=empty];
        s3 -> s2_join [color="#2e7d32", penwidth=2.5, class="taken"];
        s4 -> s2_join [color="#2e7d32", penwidth=2.5, class="taken"];
        s5 -> s2_join [color="#2e7d32", penwidth=2.5, class="taken"];
        s6 -> s6_end [color="#2e7d32", penwidth=2.5, class="taken"];
        s7 -> s8 [label="yes", color="#bbbbbb", fontcolor="#999999"];
        s7 -> s0 [label="no", style=dashed, constraint=false, color="#2e7d32", penwidth=2.5, class="taken"];
        s8 -> s8_end [color="#bbbbbb", fontcolor="#999999"];
      }

      """#)
  }

  /// A run whose second branch threw: that state and its dispatch marked failed with the reason, the branch after it, the join and what follows never reached.
  @Test func drawsARunThatFailedInABranch() async throws {
    let (chart, run) = try await RunDiagramCharts.run(named: "failed in a branch")
    expectText(
      chart.mermaidDescription(showing: run),
      #"""
      flowchart TD
        s0["Plan<br>×2 · 0.200s"]
        s1{"Booked?<br>×2 · 0.000s"}
        s2["Book<br>×1 · 0.500s<br>failed (thrown error): it threw FlowchartTests.SoldOut().<br>1 finished · 1 failed · 1 skipped"]
        s2_join[" "]
        s3["Reserve room<br>×1 · 0.200s"]
        s4["Buy ticket<br>×1 · 0.300s<br>failed (thrown error): it threw FlowchartTests.SoldOut()."]
        s5["Rent car"]
        s6["Pack"]
        s6_end(((" ")))
        s7{"Give up?<br>×1 · 0.000s"}
        s8["Cancel trip"]
        s8_end(((" ")))
        s0 -->|"×2"| s1
        s1 -->|"yes"| s2
        s1 -->|"no"| s7
        s2 -->|"Hotel"| s3
        s2 -->|"Flight"| s4
        s2 -->|"Car"| s5
        s2_join --> s6
        s3 -.->|"before"| s4
        s4 -.->|"before"| s5
        s3 --> s2_join
        s4 --> s2_join
        s5 --> s2_join
        s6 --> s6_end
        s7 -->|"yes"| s8
        s7 -.->|"no"| s0
        s8 --> s8_end
        classDef entered fill:#d8f0d8,stroke:#2e7d32,color:black
        classDef failed fill:#f8d0d0,stroke:#c62828,stroke-width:3px,color:black
        classDef cancelled fill:#fde9c8,stroke:#ef6c00,stroke-width:3px,color:black
        classDef unreached fill:#f4f4f4,stroke:#bbbbbb,color:#999999
        class s0,s1,s3,s7 entered
        class s2,s4 failed
        class s2_join,s5,s6,s6_end,s8,s8_end unreached
        linkStyle 0,1,2,3,4,9,14 stroke:#2e7d32,stroke-width:3px
        linkStyle 5,6,10,11,12,13,15 stroke:#cccccc,color:#999999

      """#)
    expectText(
      chart.dotDescription(showing: run),
      #"""
      digraph {
        node [shape=box];
        s0 [label="Plan\n×2 · 0.200s", id="s0", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s1 [label="Booked?\n×2 · 0.000s", shape=diamond, id="s1", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s2 [label="Book\n×1 · 0.500s\nfailed (thrown error): it threw FlowchartTests.SoldOut().\n1 finished · 1 failed · 1 skipped", style=filled, fillcolor=black, fontcolor=white, height=0.3, id="s2", class="failed", fillcolor="#c62828", penwidth=3, tooltip="The run stopped at action 'Buy ticket' (FlowchartTests/RunDiagramTests.swift:33): it threw FlowchartTests.SoldOut()."];
        s2_join [label="", style=filled, fillcolor=black, fontcolor=white, height=0.08, width=1.5, id="s2_join", class="unreached", fillcolor="#cccccc", color="#cccccc"];
        s3 [label="Reserve room\n×1 · 0.200s", id="s3", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s4 [label="Buy ticket\n×1 · 0.300s\nfailed (thrown error): it threw FlowchartTests.SoldOut().", id="s4", class="failed", style=filled, fillcolor="#f8d0d0", color="#c62828", penwidth=3, tooltip="The run stopped at action 'Buy ticket' (FlowchartTests/RunDiagramTests.swift:33): it threw FlowchartTests.SoldOut()."];
        s5 [label="Rent car", id="s5", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s6 [label="Pack", id="s6", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s6_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true, id="s6_end", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s7 [label="Give up?\n×1 · 0.000s", shape=diamond, id="s7", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s8 [label="Cancel trip", id="s8", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s8_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true, id="s8_end", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s0 -> s1 [label="×2", color="#2e7d32", penwidth=2.5, class="taken"];
        s1 -> s2 [label="yes", color="#2e7d32", penwidth=2.5, class="taken"];
        s1 -> s7 [label="no", color="#2e7d32", penwidth=2.5, class="taken"];
        s2 -> s3 [label="Hotel", color="#2e7d32", penwidth=2.5, class="taken"];
        s2 -> s4 [label="Flight", color="#2e7d32", penwidth=2.5, class="taken"];
        s2 -> s5 [label="Car", color="#bbbbbb", fontcolor="#999999"];
        s2_join -> s6 [color="#bbbbbb", fontcolor="#999999"];
        s3 -> s4 [label="before", style=dashed, arrowhead=empty];
        s4 -> s5 [label="before", style=dashed, arrowhead=empty];
        s3 -> s2_join [color="#2e7d32", penwidth=2.5, class="taken"];
        s4 -> s2_join [color="#bbbbbb", fontcolor="#999999"];
        s5 -> s2_join [color="#bbbbbb", fontcolor="#999999"];
        s6 -> s6_end [color="#bbbbbb", fontcolor="#999999"];
        s7 -> s8 [label="yes", color="#bbbbbb", fontcolor="#999999"];
        s7 -> s0 [label="no", style=dashed, constraint=false, color="#2e7d32", penwidth=2.5, class="taken"];
        s8 -> s8_end [color="#bbbbbb", fontcolor="#999999"];
      }

      """#)
  }

  /// A run cancelled while a state waited: that state marked cancelled, the rest faded.
  @Test func drawsARunThatWasCancelled() async throws {
    let (chart, run) = try await RunDiagramCharts.run(named: "cancelled")
    expectText(
      chart.mermaidDescription(showing: run),
      #"""
      flowchart TD
        s0["Plan<br>×1 · 0.100s"]
        s1["Await approval<br>×1 · 0.000s<br>cancelled"]
        s2["Book"]
        s2_end(((" ")))
        s0 --> s1
        s1 --> s2
        s2 --> s2_end
        classDef entered fill:#d8f0d8,stroke:#2e7d32,color:black
        classDef failed fill:#f8d0d0,stroke:#c62828,stroke-width:3px,color:black
        classDef cancelled fill:#fde9c8,stroke:#ef6c00,stroke-width:3px,color:black
        classDef unreached fill:#f4f4f4,stroke:#bbbbbb,color:#999999
        class s0 entered
        class s1 cancelled
        class s2,s2_end unreached
        linkStyle 0 stroke:#2e7d32,stroke-width:3px
        linkStyle 1,2 stroke:#cccccc,color:#999999

      """#)
    expectText(
      chart.dotDescription(showing: run),
      #"""
      digraph {
        node [shape=box];
        s0 [label="Plan\n×1 · 0.100s", id="s0", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
        s1 [label="Await approval\n×1 · 0.000s\ncancelled", id="s1", class="cancelled", style=filled, fillcolor="#fde9c8", color="#ef6c00", penwidth=3, tooltip="The run was cancelled while in action 'Await approval' (FlowchartTests/RunDiagramTests.swift:60)."];
        s2 [label="Book", id="s2", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s2_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true, id="s2_end", class="unreached", color="#bbbbbb", fontcolor="#999999"];
        s0 -> s1 [color="#2e7d32", penwidth=2.5, class="taken"];
        s1 -> s2 [color="#bbbbbb", fontcolor="#999999"];
        s2 -> s2_end [color="#bbbbbb", fontcolor="#999999"];
      }

      """#)
  }

  /// `dot` reads the DOT of each run without a warning.
  @Test(.enabled(if: GraphvizDot.path != nil || GraphvizDot.isCI, "needs Graphviz's dot"))
  func graphvizReadsEveryRunsDiagram() async throws {
    guard let dot = GraphvizDot.path else {
      Issue.record("Graphviz's dot is not on PATH; .ci/run installs it with apt-get.")
      return
    }
    for (name, chart, run) in try await RunDiagramCharts.runs() {
      let (status, errors) = try GraphvizDot.render(chart.dotDescription(showing: run), with: dot)
      #expect(status == 0, "dot failed on the run '\(name)': \(errors)")
      #expect(errors.isEmpty, "dot warned about the run '\(name)': \(errors)")
    }
  }
}
