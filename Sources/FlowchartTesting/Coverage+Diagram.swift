import Flowchart

extension Coverage {
  /// The language of a coverage's diagram.
  public enum DiagramFormat: Sendable {
    /// A Mermaid flowchart (`Flowchart.mermaidDescription(showing:)`).
    case mermaid
    /// A Graphviz graph in the DOT language (`Flowchart.dotDescription(showing:)`).
    case dot
  }

  /// What the runs took, as a diagram draws it: each state entered, each exit taken, each
  /// final state where a flow ended, with `RunOverlay.marksGaps` set so that
  /// what no run took stands out.
  public var overlay: RunOverlay {
    let taken = taken.withLock { $0 }
    var run = RunOverlay(spanLimit: 0)
    run.marksGaps = true
    for state in taken.states {
      var marks = RunOverlay.StateMarks()
      marks.visits = 1
      run.states[state] = marks
    }
    for exit in taken.exits {
      let taken = chart[exit.state].exits[exit.exit]
      run.steps[RunOverlay.Step(from: exit.state, label: taken.label, to: taken.target)] = 1
    }
    for decision in taken.decisions { run.flowEnds[decision.state] = 1 }
    return run
  }

  /// The chart drawn with what the runs took: states entered and exits taken highlighted,
  /// states never entered faded, and each exit never taken from a state that was entered
  /// marked as a gap (red and dashed). Attach it to a failing test to see what was never
  /// covered.
  ///
  /// ```swift
  /// if !coverage.isComplete { print(coverage.diagram(.mermaid)) }
  /// ```
  public func diagram(_ format: DiagramFormat) -> String {
    switch format {
    case .mermaid: chart.mermaidDescription(showing: overlay)
    case .dot: chart.dotDescription(showing: overlay)
    }
  }
}
