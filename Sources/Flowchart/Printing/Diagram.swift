/// A chart laid out as boxes and arrows, the same for every diagram syntax: the Mermaid and
/// DOT writers only spell it.
///
/// - Every state is a box, numbered as the chart numbers it (`s0`, `s1`, …), in a shape of
///   its kind's (``Shape``): each kind has its own, whichever exits the state has. A dispatch
///   is a fork bar that carries its name, and also has a join bar (`s4_join`) where its
///   branches end.
/// - A state with a timeout or retries carries them on a second line of its box, as the
///   printed tree writes them (`[timeout 30s, retry ×3 (exponential 1s×2…10s)]`).
/// - A branch's prerequisite is an arrow of its own, labelled `before`, from the first state
///   of the branch that must end first to the first state of the branch that waits for it.
/// - Every exit is an arrow, labelled `yes`, `no`, the key, `default`, or the branch's name;
///   a dispatch's own exit leaves from its join bar.
/// - Where a flow ends, an arrow says where to: each final state of the top level (the end
///   of the run) has an arrow to an end mark of its own (`s3_end`), the one mark of a final
///   state; each final state inside a branch has an arrow to its dispatch's join bar, which
///   is how a branch is seen to end (it is not marked as an end of the run). A final
///   dispatch's arrow leaves from its join bar.
/// - A catch route (see ``FlowComponent/catch(goTo:fileID:line:_:)``) is an error arrow,
///   labelled `catch`, or `catch` and the error type it takes, from the state to the route's
///   target; it is never counted as an arrow back.
/// - An arrow back is one that leads to a state still on the walk that reached it: the walk
///   goes depth first from the start (then from the entry points), taking each state's exits
///   in order, as the printed tree does. Those arrows close cycles.
///
/// Names and keys are written as the printed tree writes them (``DisplayText``), so each
/// is one line; each syntax then escapes what it must.
struct Diagram {
  /// What a box looks like: one shape per kind of state, and three marks.
  enum Shape: Equatable {
    /// A condition: a diamond, the flowchart symbol of a decision.
    case decision
    /// A multiple condition: a hexagon, a decision with many ways out.
    case keyedDecision
    /// An action: a rectangle, the flowchart symbol of a process.
    case action
    /// A dispatch, where its branches start: a bar with the dispatch's name.
    case fork
    /// Where a dispatch's branches end: an empty bar.
    case join
    /// A subflow: a box with double sides, the flowchart symbol of a predefined process.
    case subflow
    /// A map: a trapezoid, narrow at the top, the flowchart symbol of a loop's limit.
    case map
    /// A waiting state: a parallelogram, the flowchart symbol of input.
    case wait
    /// A delay: a stadium (a box with round ends), near the flowchart symbol of a delay.
    case delay
    /// Where the run ends, after a final state of the top level: a small double circle.
    case end
  }

  /// Which part of a state an arrow meets.
  enum Part: Equatable {
    /// The state's own box.
    case state
    /// The join bar of the dispatch.
    case join
    /// The end mark after the final state (or the final dispatch's join bar).
    case end
  }

  /// A box: a state, a dispatch's join bar, or an end mark.
  struct Box {
    /// The state, or for a join bar its dispatch, or for an end mark its final state.
    var state: Int32
    var shape: Shape
    /// The name as the printed tree shows it; empty for a join bar and an end mark.
    var label: String
    /// A delay's timing, then the state's timeout and retries as the printed tree shows them
    /// between `[` and `]` (joined by ` · `),
    /// or empty for none.
    var modifiers: String = ""

    /// The box's node ID.
    var id: String { Diagram.id(End(state: state, part: part)) }

    /// The part of the state the box draws.
    var part: Part {
      switch shape {
      case .join: .join
      case .end: .end
      case .decision, .keyedDecision, .action, .fork, .subflow, .map, .wait, .delay: .state
      }
    }
  }

  /// One end of an arrow.
  struct End: Equatable {
    var state: Int32
    /// The part of `state` the arrow meets.
    var part: Part = .state
  }

  /// An arrow.
  struct Arrow {
    var from: End
    var to: End
    /// `yes`, `no`, a key's text, `default`, a branch's name, or `nil` for none.
    var label: String?
    /// Whether the arrow leads back to a state on the walk that reached it.
    var isBack: Bool
    /// Whether the arrow orders two branches of a dispatch (labelled `before`) rather than
    /// being an exit.
    var isPrerequisite = false
    /// Whether the arrow is a catch route: where the flow goes when the state's code fails.
    var isCatch = false
    /// The exit the arrow draws, for an exit of the state (a run's drawing matches it).
    var exit: Exit.Label? = nil
  }

  /// The boxes, in state order, each dispatch's join bar right after its fork bar, and each
  /// end mark right after the box whose arrow meets it.
  private(set) var boxes: [Box] = []
  /// The arrows, by the state they leave (for a dispatch's exit, its join bar), in state
  /// order: each state's exits in declaration order, then its catch routes, then the arrow
  /// that ends its flow.
  private(set) var arrows: [Arrow] = []

  /// Lays out `graph`.
  ///
  /// - Complexity: O(*n*) in the number of states and exits; iterative, so charts of any
  ///   depth lay out without growing the stack.
  init<Context>(graph: Graph<Context>) {
    let isBack = Self.arrowsBack(in: graph)
    let joins = Self.joinOfFlow(in: graph)
    boxes.reserveCapacity(graph.records.count)
    arrows.reserveCapacity(graph.exits.count + graph.records.count / 2)
    for (index, record) in graph.records.enumerated() {
      let state = Int32(index)
      let here = End(state: state)
      let isDispatch = record.kind == .dispatch
      let shape: Shape =
        switch record.kind.code {
        case .dispatch: .fork
        case .condition: .decision
        case .multipleCondition: .keyedDecision
        case .subflow: .subflow
        case .map: .map
        case .waiting: .wait
        case .delay: .delay
        case .action: .action
        }
      // A delay's timing goes on the line of its modifiers, first.
      let timing = (record.attachment as? DelaySlot)?.timing.summary
      let modifiers = record.declaration.modifiers?.summary ?? ""
      boxes.append(
        Box(
          state: state, shape: shape, label: DisplayText.name(record.name),
          modifiers: [timing ?? "", modifiers].filter { !$0.isEmpty }.joined(separator: " · ")))
      if isDispatch {
        boxes.append(Box(state: state, shape: .join, label: ""))
      }
      // The branch whose flow the state is in, or -1 for the top level.
      let dispatch = joins[Int(record.flow)]
      if record.isFinal, dispatch < 0 {
        boxes.append(Box(state: state, shape: .end, label: ""))
      }
      var exitIndex = Int(record.firstExit)
      for exit in graph.storedExits(of: index) {
        defer { exitIndex += 1 }
        let to = End(state: exit.target)
        let label: String?
        var from = here
        switch exit.label {
        case .next:
          label = nil
          if isDispatch { from.part = .join }
        case .yes: label = "yes"
        case .no: label = "no"
        case .default: label = "default"
        case .key(let key): label = graph.keyLabels[Int(key)]
        case .branch(let branch):
          label = graph.branchName(ofDispatch: state, branch: branch).map(DisplayText.name)
        }
        arrows.append(
          Arrow(
            from: from, to: to, label: label, isBack: isBack[exitIndex],
            exit: exit.label.label(keyLabels: graph.keyLabels)))
      }
      if isDispatch { arrows += Self.prerequisiteArrows(ofDispatch: state, in: graph) }
      for route in graph.catchRoutes(of: state, record.declaration.modifiers) {
        arrows.append(
          Arrow(
            from: here, to: End(state: route.target),
            label: route.errorType.map { "catch \($0)" } ?? "catch", isBack: false, isCatch: true))
      }
      // A final state ends its flow: inside a branch, an arrow to the join bar; at the top
      // level, an arrow to its end mark (from a final dispatch's own join bar).
      if record.isFinal {
        arrows.append(
          Arrow(
            from: End(state: state, part: isDispatch ? .join : .state),
            to: dispatch >= 0 ? End(state: dispatch, part: .join) : End(state: state, part: .end),
            label: nil, isBack: false))
      }
    }
  }

  /// The node ID of one end of an arrow, the same in every syntax: `s3`, `s3_join` for a
  /// join bar, `s3_end` for an end mark.
  static func id(_ end: End) -> String {
    switch end.part {
    case .state: "s\(end.state)"
    case .join: "s\(end.state)_join"
    case .end: "s\(end.state)_end"
    }
  }

  /// The arrows that order the branches of the dispatch `state`: one from the first state of
  /// each prerequisite to the first state of the branch that waits for it.
  private static func prerequisiteArrows<Context>(ofDispatch state: Int32, in graph: Graph<Context>)
    -> [Arrow]
  {
    var starts: [(name: String?, first: Int32, branch: Int32)] = []
    for exit in graph.storedExits(of: Int(state)) {
      if case .branch(let branch) = exit.label {
        starts.append(
          (graph.branchName(ofDispatch: state, branch: branch), exit.target, branch))
      }
    }
    var arrows: [Arrow] = []
    for start in starts {
      for name in graph.branchPrerequisites(ofDispatch: state, branch: start.branch) {
        guard let prerequisite = starts.first(where: { $0.name == name }) else { continue }
        arrows.append(
          Arrow(
            from: End(state: prerequisite.first), to: End(state: start.first),
            label: "before", isBack: false,
            isPrerequisite: true))
      }
    }
    return arrows
  }

  /// Where a state is in the walk that finds the arrows back.
  private enum Mark { case unvisited, onWalk, done }

  /// For every exit of `graph`, in its order, whether it leads back to a state on the walk
  /// that reached it.
  private static func arrowsBack<Context>(in graph: Graph<Context>) -> [Bool] {
    var marks = [Mark](repeating: .unvisited, count: graph.records.count)
    var isBack = [Bool](repeating: false, count: graph.exits.count)
    // The walk so far: each state on it, and the next of its exits to follow.
    var walk: [(state: Int, exit: Int)] = []
    let roots = [graph.start] + graph.entryPoints + graph.records.indices.map { Int32($0) }
    for root in roots.lazy.map({ Int($0) }) where marks[root] == .unvisited {
      marks[root] = .onWalk
      walk.append((root, Int(graph.records[root].firstExit)))
      while let (state, exit) = walk.last {
        guard exit < graph.exitsEnd(of: state) else {
          marks[state] = .done
          walk.removeLast()
          continue
        }
        walk[walk.count - 1].exit += 1
        let target = Int(graph.exits[exit].target)
        switch marks[target] {
        case .unvisited:
          marks[target] = .onWalk
          walk.append((target, Int(graph.records[target].firstExit)))
        case .onWalk:
          isBack[exit] = true
        case .done:
          break
        }
      }
    }
    return isBack
  }

  /// For each flow (0 for the top level, then one per dispatch branch), the dispatch whose
  /// branch it is, or -1 for the top level.
  private static func joinOfFlow<Context>(in graph: Graph<Context>) -> [Int32] {
    let flows = (graph.records.lazy.map(\.flow).max() ?? 0) + 1
    var dispatches = [Int32](repeating: -1, count: Int(flows))
    for (index, record) in graph.records.enumerated() where record.kind == .dispatch {
      for exit in graph.storedExits(of: index) where exit.label != .next {
        dispatches[Int(graph.records[Int(exit.target)].flow)] = Int32(index)
      }
    }
    return dispatches
  }

  /// The label of `box` in a diagram's format: its name, and its modifiers between `[` and
  /// `]` after `lineBreak`, each escaped by `escape` (see `Diagram.dotLabel(_:inRecord:)` and
  /// `Diagram.mermaidLabel(_:)`).
  static func label(_ box: Box, lineBreak: String, escape: (String) -> String) -> String {
    var label = escape(box.label)
    if !box.modifiers.isEmpty {
      label += lineBreak + escape("[" + box.modifiers + "]")
    }
    return label
  }
}

extension Graph {
  /// The index just past the last exit of the state `state` in ``exits``.
  fileprivate func exitsEnd(of state: Int) -> Int {
    state + 1 < records.count ? Int(records[state + 1].firstExit) : exits.count
  }
}
