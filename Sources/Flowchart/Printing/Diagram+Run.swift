/// A run drawn on a diagram: what each box and each arrow shows of a ``RunOverlay``, the
/// same for every syntax (the Mermaid and DOT writers only spell it).
///
/// - A state box is in one class: `entered` (the run entered it), `failed` (a flow stopped
///   there with an error), `cancelled` (a flow stopped there, cancelled) or `unreached`
///   (never entered). A join bar is `entered` when its dispatch was, an end mark when a
///   flow ended there; otherwise `unreached`.
/// - An entered state's label gains a line with its visits and the time it took in all
///   (`×3 · 0.900s`); a state where a flow stopped, a line with the kind and the reason
///   (`failed (thrown): …`, cut at 60 characters); a dispatch's fork bar, how its
///   branches ended (`2 finished · 1 failed · 0 skipped`, and `· n cancelled` when any
///   were). Once the run is over, a branch that never started (one a failing dispatch
///   left) counts as skipped. A map's box, when the overlay has its tally, how its
///   elements ended, in the same words.
/// - An arrow the run followed is `taken`, its label followed by how many times when more
///   than once (`yes ×2`); an exit never followed is faded; a prerequisite arrow is drawn
///   as without a run.
struct RunMarks {
  /// The class of a box.
  enum BoxClass: String {
    case entered, failed, cancelled, unreached
  }

  /// Each box's class, in the diagram's order of boxes.
  var classes: [BoxClass] = []
  /// Each box's lines under its label.
  var notes: [[String]] = []
  /// Each box's failure reason, whole, for a tooltip; `nil` for none.
  var reasons: [String?] = []
  /// How many times the run followed each arrow, in the diagram's order of arrows; `nil`
  /// for an arrow a run does not follow (a prerequisite).
  var counts: [Int?] = []
  /// Whether each arrow is a gap of a coverage: an exit never taken from a state entered.
  var gaps: [Bool] = []
  /// Whether labels show counts and times (not for a coverage).
  var showsCounts = true

  /// The longest reason a box's label shows.
  static let reasonLength = 60

  /// What `run` shows on `diagram`.
  init(_ run: RunOverlay, on diagram: Diagram) {
    // How many branches each dispatch has: its arrows that start a branch.
    var branchCounts: [Int32: Int] = [:]
    for arrow in diagram.arrows {
      if arrow.exit?.branch != nil { branchCounts[arrow.from.state, default: 0] += 1 }
    }
    for box in diagram.boxes {
      let id = StateID(box.state)
      let marks = run.states[id]
      var notes: [String] = []
      var reason: String?
      let boxClass: BoxClass
      switch box.part {
      case .state:
        if let marks {
          if let stop = marks.stop {
            boxClass = stop.isCancellation ? .cancelled : .failed
            reason = stop.reason
          } else {
            boxClass = .entered
          }
          if !run.marksGaps {
            notes.append("×\(RunLog.grouped(marks.visits)) · \(RunLog.seconds(marks.time))")
          }
          if let stop = marks.stop {
            let short = Self.shortReason(stop.reason)
            let cut =
              short.count > Self.reasonLength
              ? String(short.prefix(Self.reasonLength - 1)) + "…" : short
            let verb = stop.isCancellation ? "cancelled" : "failed (\(stop.kind))"
            notes.append(cut.isEmpty ? verb : "\(verb): \(DisplayText.name(cut))")
          }
        } else {
          boxClass = .unreached
        }
        if box.shape == .fork, !run.marksGaps, let marks,
          var tally = run.branches[id]
            ?? (run.ending == .unfinished ? nil : RunOverlay.BranchTally())
        {
          if run.ending != .unfinished {
            // Branches that never started and that no event reports (those a failing
            // dispatch left unstarted) are skipped: the run is over, they will not start.
            let accounted = tally.started + tally.skipped + tally.cancelledBeforeStart
            let expected = (branchCounts[box.state] ?? 0) * marks.visits
            tally.skipped += max(0, expected - accounted)
          }
          var parts = [
            "\(tally.finished) finished", "\(tally.failed) failed", "\(tally.skipped) skipped",
          ]
          if tally.cancelled > 0 { parts.append("\(tally.cancelled) cancelled") }
          notes.append(parts.joined(separator: " · "))
        }
        if !run.marksGaps, let tally = run.maps[id] {
          notes.append(
            "\(RunLog.grouped(tally.finished)) finished · \(RunLog.grouped(tally.failed)) failed · \(RunLog.grouped(tally.skipped)) skipped"
          )
        }
      case .join:
        boxClass = (run.branches[id]?.joins ?? 0) > 0 ? .entered : .unreached
      case .end:
        boxClass = (run.flowEnds[id] ?? 0) > 0 ? .entered : .unreached
      }
      classes.append(boxClass)
      self.notes.append(notes)
      reasons.append(reason)
    }
    counts = Self.counts(of: run, on: diagram)
    showsCounts = !run.marksGaps
    gaps = zip(diagram.arrows, counts).map { arrow, count in
      run.marksGaps && count == 0 && !arrow.isCatch && arrow.exit != nil
        && run.states[StateID(arrow.from.state)] != nil
    }
  }

  /// The count an arrow's label shows after it (`×2`), if any.
  func countLabel(ofArrow index: Int) -> String? {
    guard showsCounts, let count = counts[index], count > 1 else { return nil }
    return "×\(RunLog.grouped(count))"
  }

  /// `reason` without the place a run error's reason starts with (`The run stopped at
  /// action 'Pay' (Shop.swift:12): `), which the box shows already; empty when the place
  /// is all it says (`The run was cancelled while in action 'Pay' (Shop.swift:12).`).
  static func shortReason(_ reason: String) -> String {
    guard reason.hasPrefix("The run ") else { return reason }
    if let colon = reason.firstRange(of: "): ") { return String(reason[colon.upperBound...]) }
    return reason.hasSuffix(").") ? "" : reason
  }

  /// How many times `run` followed each arrow of `diagram`.
  private static func counts(of run: RunOverlay, on diagram: Diagram) -> [Int?] {
    // The steps by the pair of states they join; a step whose exit no arrow between the two
    // draws (or that names none) counts for the first such arrow.
    struct Pair: Hashable {
      var from: Int32
      var to: Int32
      var isCatch: Bool
    }
    var byPair: [Pair: [(label: Exit.Label?, count: Int)]] = [:]
    for (step, count) in run.steps {
      byPair[
        Pair(from: Int32(step.from.index), to: Int32(step.to.index), isCatch: step.isCatch),
        default: []
      ].append((step.label, count))
    }
    var labelsOfPair: [Pair: [Exit.Label]] = [:]
    for arrow in diagram.arrows {
      guard let exit = arrow.exit else { continue }
      labelsOfPair[Pair(from: arrow.from.state, to: arrow.to.state, isCatch: false), default: []]
        .append(exit)
    }
    var seen: Set<Pair> = []
    return diagram.arrows.map { arrow -> Int? in
      if arrow.isPrerequisite { return nil }
      if arrow.to.part != .state {
        // The arrow that ends a flow: from a final state to its end mark or join bar.
        return run.flowEnds[StateID(arrow.from.state)] ?? 0
      }
      let pair = Pair(from: arrow.from.state, to: arrow.to.state, isCatch: arrow.isCatch)
      let isFirst = seen.insert(pair).inserted
      let known = labelsOfPair[pair] ?? []
      var count = 0
      for step in byPair[pair] ?? [] {
        if let label = step.label, known.contains(label) {
          if label == arrow.exit { count += step.count }
        } else if isFirst {
          count += step.count
        }
      }
      return count
    }
  }
}

extension Flowchart {
  /// The chart as a Mermaid flowchart, as ``mermaidDescription`` draws it, with `run` drawn
  /// on it.
  ///
  /// Boxes are in classes, styled by `classDef` lines: `entered` (green), `failed` (red,
  /// thick), `cancelled` (orange, thick), `unreached` (faded grey). An entered state's label
  /// gains a line with its visits and the time it took (`×3 · 0.900s`), a state where a flow
  /// stopped, one with the kind and the reason, and a dispatch's bar, how its branches
  /// ended (`2 finished · 1 failed · 0 skipped`). Arrows the run followed are thick and
  /// green (a `linkStyle` line), with `×n` after their label when followed more than once;
  /// the others are faded.
  ///
  /// ```swift
  /// let handle = chart.start(with: context, isLogged: true)
  /// _ = try? await handle.result
  /// print(chart.mermaidDescription(showing: RunOverlay(log: handle.log)))
  /// ```
  ///
  /// - Complexity: O(*n*) in the number of states and exits, plus the overlay's steps.
  public func mermaidDescription(showing run: RunOverlay) -> String {
    mermaidText(run: run)
  }

  /// The chart as a Graphviz graph, as ``dotDescription`` draws it, with `run` drawn on
  /// it.
  ///
  /// Each state's node carries `id` (`s3`) and `class` (`entered`, `failed`, `cancelled`
  /// or `unreached`), which `dot -Tsvg` writes on the node's SVG group, so a page can style
  /// or find them; entered states are filled green, failed ones red, cancelled ones orange,
  /// unreached ones are grey. Labels and arrows show what
  /// ``mermaidDescription(showing:)`` shows; a failed state's whole reason is its
  /// `tooltip`.
  ///
  /// - Complexity: O(*n*) in the number of states and exits, plus the overlay's steps.
  public func dotDescription(showing run: RunOverlay) -> String {
    dotText(run: run)
  }
}
