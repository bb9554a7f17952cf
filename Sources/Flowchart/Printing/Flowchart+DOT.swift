extension Flowchart {
  /// The chart as a Graphviz graph in the DOT language, for `dot -Tsvg` and the tools that
  /// read it.
  ///
  /// ```text
  /// digraph {
  ///   node [shape=box];
  ///   s0 [label="Willing to exercise?", shape=diamond];
  ///   s1 [label="Lift weights"];
  ///   s2 [label="Do sit-ups"];
  ///   s2_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
  ///   s3 [label="Injured?", shape=diamond];
  ///   s3_end [label="", shape=doublecircle, width=0.2, height=0.2, fixedsize=true];
  ///   s0 -> s1 [label="yes"];
  ///   s0 -> s3 [label="no"];
  ///   s1 -> s2;
  ///   s2 -> s2_end;
  ///   s3 -> s3_end;
  /// }
  /// ```
  ///
  /// - Each state is a node named `s` and its index (``StateID/index``), in its kind's shape:
  ///   a condition is a diamond (`shape=diamond`), a multiple condition a hexagon
  ///   (`shape=hexagon`), an action a box, a waiting state a parallelogram
  ///   (`shape=parallelogram`), a subflow a box with double sides (a record with an empty
  ///   field each side, `shape=record, label="|Name|"`), a map a trapezoid
  ///   (`shape=trapezium`), a delay an oval (`shape=oval`), with its timing on a second
  ///   line (`[for 3 days]`, `[until <context>]`). A dispatch is a black bar with its name where its branches
  ///   start, and an empty black bar, `s` and its index then `_join`, where they end.
  /// - A state with a timeout or retries shows them on a second line of its label, as the
  ///   printed tree does: `Upload\n[timeout 30s, retry ×3 (fixed 1s)]`.
  /// - Edges are labelled `yes` and `no`, with a multiple condition's keys (and
  ///   `default`), and with a branch's name when it has one.
  /// - A final state of the top level, where the run ends, has an edge to an end mark of
  ///   its own: a small double circle named `s` and its index then `_end` (after a final
  ///   dispatch's join bar). A final state inside a branch ends only its branch: it has an
  ///   edge to its dispatch's join bar instead, and the dispatch's own exit leaves from
  ///   there.
  /// - A catch route is a red dashed edge (`style=dashed, color=red, fontcolor=red`)
  ///   labelled `catch`, or `catch` and the error type it takes, from the state to the
  ///   route's target.
  /// - A dispatch's branch that waits for others (its prerequisites) has a dashed edge with
  ///   an empty arrowhead, labelled `before`, from the first state of each prerequisite
  ///   branch to its own first state.
  /// - An edge back, to a state still on the depth-first walk from the start that reached
  ///   it (the edges that close cycles), is dashed and does not rank its ends
  ///   (`style=dashed, constraint=false`), so the drawing reads top to bottom as the walk
  ///   does.
  ///
  /// Names and keys are written as the printed tree writes them (see
  /// ``printTree(to:)``): a name with a line break or an invisible character shows as a
  /// string literal, `"a\nb"`. In the DOT text, `"` and `\` are escaped with a backslash
  /// and `&` is written `&amp;`, so that Graphviz reads no escape sequence or HTML entity
  /// into a name; in a subflow's record label, `{`, `}`, `|`, `<`, `>` and spaces are
  /// escaped with a backslash too.
  ///
  /// - Complexity: O(*n*) in the number of states and exits.
  public var dotDescription: String { dotText(run: nil) }

  /// The DOT text, with `run` drawn on it when there is one (see
  /// ``dotDescription(showing:)``).
  func dotText(run: RunOverlay?) -> String {
    let diagram = Diagram(graph: graph)
    let marks = run.map { RunMarks($0, on: diagram) }
    var text = "digraph {\n  node [shape=box];\n"
    for (index, box) in diagram.boxes.enumerated() {
      text += "  " + box.id + " [label=\""
      let notes = marks?.notes[index] ?? []
      let label = Diagram.dotLabel(box, notes: notes)
      switch box.shape {
      case .decision:
        text += label + "\", shape=diamond"
      case .keyedDecision:
        text += label + "\", shape=hexagon"
      case .action:
        text += label + "\""
      case .fork:
        text += label + "\", " + Self.dotBar + ", height=0.3"
      case .join:
        text += "\", " + Self.dotBar + ", height=0.08, width=1.5"
      case .subflow:
        text += "|" + Diagram.dotLabel(box, inRecord: true, notes: notes) + "|\", shape=record"
      case .map:
        text += label + "\", shape=trapezium"
      case .wait:
        text += label + "\", shape=parallelogram"
      case .delay:
        text += label + "\", shape=oval"
      case .end:
        text += "\", shape=doublecircle, width=0.2, height=0.2, fixedsize=true"
      }
      if let marks { text += Diagram.dotRunAttributes(marks, box: index, of: diagram) }
      text += "];\n"
    }
    for (index, arrow) in diagram.arrows.enumerated() {
      text += "  " + Diagram.id(arrow.from) + " -> " + Diagram.id(arrow.to)
      var attributes: [String] = []
      var label = arrow.label
      let count = marks?.counts[index]
      if let countLabel = marks?.countLabel(ofArrow: index) {
        label = (label.map { $0 + " " } ?? "") + countLabel
      }
      if let label {
        attributes.append("label=\"" + Diagram.dotText(label) + "\"")
      }
      if arrow.isBack {
        attributes.append("style=dashed, constraint=false")
      }
      if arrow.isPrerequisite {
        attributes.append("style=dashed, arrowhead=empty")
      }
      if arrow.isCatch {
        attributes.append("style=dashed, color=red, fontcolor=red")
      }
      if let count {
        if count > 0 {
          attributes.append(
            arrow.isCatch
              ? "penwidth=2.5, class=\"taken\"" : "color=\"#2e7d32\", penwidth=2.5, class=\"taken\""
          )
        } else if marks?.gaps[index] == true {
          attributes.append("style=dashed, color=\"#c62828\", fontcolor=\"#c62828\", class=\"gap\"")
        } else if !arrow.isCatch {
          attributes.append("color=\"#bbbbbb\", fontcolor=\"#999999\"")
        }
      }
      text += attributes.isEmpty ? ";\n" : " [" + attributes.joined(separator: ", ") + "];\n"
    }
    text += "}\n"
    return text
  }

  /// The attributes of a dispatch's bars.
  private static var dotBar: String { "style=filled, fillcolor=black, fontcolor=white" }
}

extension Diagram {
  /// The label of `box` ready to go between `"` in DOT: its name, and its modifiers on a
  /// second line (`\n`), each escaped by ``dotText(_:)``, and for a record label
  /// (`inRecord`) by ``dotRecordText(_:)`` too.
  static func dotLabel(_ box: Box, inRecord: Bool = false, notes: [String] = []) -> String {
    let escape = inRecord ? { dotRecordText(dotText($0)) } : dotText
    var text = Self.label(box, lineBreak: "\\n", escape: escape)
    for note in notes {
      text += (text.isEmpty ? "" : "\\n") + escape(note)
    }
    return text
  }

  /// The attributes after a box's own that draw a run on it: its `id` and `class` (which
  /// `dot -Tsvg` writes on the node's group), its colours, and a failure's whole reason as
  /// its tooltip.
  static func dotRunAttributes(_ marks: RunMarks, box index: Int, of diagram: Diagram) -> String {
    let box = diagram.boxes[index]
    let boxClass = marks.classes[index]
    var text = ", id=\"" + box.id + "\", class=\"" + boxClass.rawValue + "\""
    let isBar = box.shape == .fork || box.shape == .join
    switch boxClass {
    case .entered:
      if !isBar { text += ", style=filled, fillcolor=\"#d8f0d8\", color=\"#2e7d32\"" }
    case .failed:
      text +=
        isBar
        ? ", fillcolor=\"#c62828\"" : ", style=filled, fillcolor=\"#f8d0d0\", color=\"#c62828\""
      text += ", penwidth=3"
    case .cancelled:
      text +=
        isBar
        ? ", fillcolor=\"#ef6c00\"" : ", style=filled, fillcolor=\"#fde9c8\", color=\"#ef6c00\""
      text += ", penwidth=3"
    case .unreached:
      text +=
        isBar
        ? ", fillcolor=\"#cccccc\", color=\"#cccccc\""
        : ", color=\"#bbbbbb\", fontcolor=\"#999999\""
    }
    if let reason = marks.reasons[index] {
      text += ", tooltip=\"" + dotText(reason) + "\""
    }
    return text
  }

  /// `text` ready to go between `"` in DOT: `"` and `\` escaped with a backslash (a
  /// backslash would otherwise start Graphviz's `\n`, `\l`, `\N`, … in a label), and `&`
  /// written `&amp;` (Graphviz reads HTML entities such as `&lt;` in labels).
  static func dotText(_ text: String) -> String {
    DisplayText.replacing(in: text) { scalar in
      switch scalar {
      case "\"": "\\\""
      case "\\": "\\\\"
      case "&": "&amp;"
      default: nil
      }
    }
  }

  /// `text`, already escaped by ``dotText(_:)``, ready to be a field of a record label:
  /// `{`, `}`, `|`, `<` and `>` (a record's syntax) and spaces (which a record would
  /// collapse and trim) escaped with a backslash.
  static func dotRecordText(_ text: String) -> String {
    DisplayText.replacing(in: text) { scalar in
      switch scalar {
      case "{", "}", "|", "<", ">", " ": "\\" + String(scalar)
      default: nil
      }
    }
  }
}
