import Testing

@testable import Flowchart

/// A map's elements summarised on the run's drawing: how many finished, failed and were
/// skipped, as the overlay's `mapEnded` happening tells it.
struct RunDiagramMapTests {
  struct Batch: Sendable {
    var items = [0, 1, 2, 3, 4]
    var done = 0
  }

  static func chart() throws -> Flowchart<Batch> {
    let element = try Flowchart<Int> { Action("Handle", isFinal: true) }
    return try Flowchart<Batch> {
      Map("Each item", over: { $0.items }, running: element, toleratedFailures: 1) {
        batch, results in batch.done = results.outputs.count
      }
      Action("Report", isFinal: true)
    }
  }

  /// A run that entered the map once: 3 elements finished, 1 failed (tolerated), 1 skipped.
  static func overlay() -> RunOverlay {
    var run = RunOverlay()
    let (map, report) = (StateID(0), StateID(1))
    run.record(.entered, state: map, flow: 0, time: .zero)
    run.record(
      .mapEnded(finished: 3, failed: 1, skipped: 1), state: map, flow: 0,
      time: .milliseconds(400))
    run.record(.decided(.next), state: map, flow: 0, time: .milliseconds(400))
    run.record(.entered, state: report, flow: 0, time: .milliseconds(400))
    run.record(.decided(.next), state: report, flow: 0, time: .milliseconds(500))
    run.record(.runFinished, state: report, flow: 0, time: .milliseconds(500))
    return run
  }

  @Test func mermaidShowsHowAMapsElementsEnded() throws {
    let text = try Self.chart().mermaidDescription(showing: Self.overlay())
    #expect(
      text == #"""
        flowchart TD
          s0[/"Each item<br>×1 · 0.400s<br>3 finished · 1 failed · 1 skipped"\]
          s1["Report<br>×1 · 0.100s"]
          s1_end(((" ")))
          s0 --> s1
          s1 --> s1_end
          classDef entered fill:#d8f0d8,stroke:#2e7d32,color:black
          classDef failed fill:#f8d0d0,stroke:#c62828,stroke-width:3px,color:black
          classDef cancelled fill:#fde9c8,stroke:#ef6c00,stroke-width:3px,color:black
          classDef unreached fill:#f4f4f4,stroke:#bbbbbb,color:#999999
          class s0,s1,s1_end entered
          linkStyle 0,1 stroke:#2e7d32,stroke-width:3px

        """#)
  }

  @Test func dotShowsHowAMapsElementsEnded() throws {
    let text = try Self.chart().dotDescription(showing: Self.overlay())
    #expect(
      text == #"""
        digraph {
          node [shape=box];
          s0 [label="Each item\n×1 · 0.400s\n3 finished · 1 failed · 1 skipped", shape=trapezium, id="s0", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
          s1 [label="Report\n×1 · 0.100s", id="s1", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
          s1_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true, id="s1_end", class="entered", style=filled, fillcolor="#d8f0d8", color="#2e7d32"];
          s0 -> s1 [color="#2e7d32", penwidth=2.5, class="taken"];
          s1 -> s1_end [color="#2e7d32", penwidth=2.5, class="taken"];
        }

        """#)
  }

  @Test func withoutATallyAMapShowsNoCounts() throws {
    var run = RunOverlay()
    run.record(.entered, state: StateID(0), flow: 0, time: .zero)
    let text = try Self.chart().mermaidDescription(showing: run)
    #expect(!text.contains("finished"))
  }

  struct ElementFailed: Error {}

  /// A live run's map reports its elements as they ended, in the log and in events, and the
  /// overlay read from the log draws them: 1 failure tolerated of 5, and with a second
  /// failure the map stops.
  @Test(arguments: [
    (
      failing: [2], tally: "4 finished · 1 failed · 0 skipped",
      logged: "4 finished, 1 failed, 0 skipped"
    )
  ])
  func aLiveRunReportsItsMapsElements(failing: [Int], tally: String, logged: String) async throws {
    let element = try Flowchart<Int> {
      Action("Handle", isFinal: true) { item in
        if failing.contains(item) { throw ElementFailed() }
      }
    }
    let chart = try Flowchart<Batch> {
      Map(
        "Each item", over: { $0.items }, running: element, maxConcurrency: 1, toleratedFailures: 1
      ) {
        batch, results in batch.done = results.outputs.count
      }
      Action("Report", isFinal: true)
    }
    let handle = chart.start(with: Batch(), isLogged: true)
    let result = try await handle.result
    #expect(result.context.done == 4)
    let lines = handle.log.lines
    #expect(
      lines.contains { $0.hasSuffix("'Each item' ended its elements: \(logged)") }, "\(lines)")
    let text = chart.mermaidDescription(showing: RunOverlay(log: handle.log))
    #expect(text.contains(tally), "\(text)")
  }

  @Test func aMapStoppedByAFailureCountsTheRestSkipped() async throws {
    let element = try Flowchart<Int> {
      Action("Handle", isFinal: true) { item in
        if item >= 1 { throw ElementFailed() }
      }
    }
    let chart = try Flowchart<Batch> {
      Map(
        "Each item", over: { $0.items }, running: element, maxConcurrency: 1, toleratedFailures: 1
      ) {
        batch, results in batch.done = results.outputs.count
      }
      Action("Report", isFinal: true)
    }
    let handle = chart.start(with: Batch(), isLogged: true)
    await #expect(throws: RunError.self) { _ = try await handle.result }
    let lines = handle.log.lines
    #expect(
      lines.contains {
        $0.hasSuffix("'Each item' ended its elements: 1 finished, 2 failed, 2 skipped")
      },
      "\(lines)")
  }

  @Test func aPlainRunReportsNothing() throws {
    // `runSynchronously` lends its states no live run: the map's report goes nowhere, and
    // the run is as before. (Synchronous, with a map of one element at a time: Swift 6.3.1
    // crashed splitting the coroutine of the asynchronous form of this test in release.)
    let element = try Flowchart<Int> { Action("Handle", isFinal: true) }
    let chart = try Flowchart<Batch> {
      Map("Each item", over: { $0.items }, running: element, maxConcurrency: 1) {
        batch, results in batch.done = results.outputs.count
      }
      Action("Report", isFinal: true)
    }
    let result = try chart.runSynchronously(with: Batch())
    #expect(result.context.done == 5)
  }
}
