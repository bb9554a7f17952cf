import Flowchart
import FlowchartTesting
import Testing

/// A coverage drawn on its chart: what the runs took highlighted, what they missed marked.
struct CoverageDiagramTests {
  @Test func oneRunDrawsItsPathAndMarksTheExitNeverTakenAsAGap() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    _ = try await coverage.recordingChart.run(with: Subject(isInjured: true))
    #expect(
      coverage.diagram(.mermaid) == #"""
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
          classDef entered fill:#d8f0d8,stroke:#2e7d32,color:black
          classDef failed fill:#f8d0d0,stroke:#c62828,stroke-width:3px,color:black
          classDef cancelled fill:#fde9c8,stroke:#ef6c00,stroke-width:3px,color:black
          classDef unreached fill:#f4f4f4,stroke:#bbbbbb,color:#999999
          class s0,s3,s3_end entered
          class s1,s2,s2_end unreached
          linkStyle 1,4 stroke:#2e7d32,stroke-width:3px
          linkStyle 0 stroke:#c62828,color:#c62828,stroke-dasharray:4
          linkStyle 2,3 stroke:#cccccc,color:#999999

        """#)
    let dot = coverage.diagram(.dot)
    #expect(
      dot.contains(
        ##"s0 -> s1 [label="yes", style=dashed, color="#c62828", fontcolor="#c62828", class="gap"];"##
      ))
    #expect(
      dot.contains(##"s0 -> s3 [label="no", color="#2e7d32", penwidth=2.5, class="taken"];"##))
    #expect(dot.contains(##"s1 [label="Lift weights", id="s1", class="unreached""##))
  }

  @Test func everyRouteLeavesNoGapInTheDrawing() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    for route in chart.routes() {
      _ = try await chart.run(with: Subject(), script: route.script, recordingInto: coverage)
    }
    let text = coverage.diagram(.dot)
    #expect(!text.contains("class=\"gap\""))
    #expect(!text.contains("class=\"unreached\""))
    #expect(coverage.overlay.marksGaps)
  }
}
