extension Flowchart {
  /// The chart as a Graphviz graph in the DOT language, for `dot -Tsvg` and the tools that
  /// read it.
  ///
  /// ```text
  /// digraph {
  ///   node [shape=box];
  ///   s0 [label="Willing to exercise?", shape=diamond];
  ///   s1 [label="Lift weights"];
  ///   s2 [label="Do sit-ups", peripheries=2];
  ///   s3 [label="Injured?", shape=diamond, peripheries=2];
  ///   s0 -> s1 [label="yes"];
  ///   s0 -> s3 [label="no"];
  ///   s1 -> s2;
  /// }
  /// ```
  ///
  /// - Each state is a node named `s` and its index (``StateID/index``): conditions and
  ///   multiple conditions are diamonds, actions boxes. A dispatch is a black bar with its
  ///   name where its branches start, and an empty black bar, `s` and its index then
  ///   `_join`, where they end.
  /// - Edges are labelled `yes` and `no`, with a multiple condition's keys (and
  ///   `default`), and with a branch's name when it has one. A final state inside a branch
  ///   has an edge to its dispatch's join bar; the dispatch's own exit leaves from there.
  /// - Final states have a double outline (`peripheries=2`); so does a final dispatch's
  ///   join bar.
  /// - A subflow is a box with a double outline (`shape=box, peripheries=2`; a final one has
  ///   three), a map a hexagon, a waiting state a parallelogram, whichever exits they have.
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
  /// into a name.
  ///
  /// - Complexity: O(*n*) in the number of states and exits.
  public var dotDescription: String {
    let diagram = Diagram(graph: graph)
    var text = "digraph {\n  node [shape=box];\n"
    for box in diagram.boxes {
      text += "  " + Self.dotID(Diagram.End(state: box.state, isJoin: box.shape == .join))
      switch box.shape {
      case .decision:
        text += " [label=\"" + Diagram.dotText(box.label) + "\", shape=diamond"
      case .action:
        text += " [label=\"" + Diagram.dotText(box.label) + "\""
      case .fork:
        text += " [label=\"" + Diagram.dotText(box.label) + "\", " + Self.dotBar + ", height=0.3"
      case .join:
        text += " [label=\"\", " + Self.dotBar + ", height=0.08, width=1.5"
      case .subflow:
        // A double edge already: a final subflow has a third.
        text += " [label=\"" + Diagram.dotText(box.label) + "\", shape=box"
        text += box.isFinal ? ", peripheries=3];\n" : ", peripheries=2];\n"
        continue
      case .map:
        text += " [label=\"" + Diagram.dotText(box.label) + "\", shape=hexagon"
      case .wait:
        text += " [label=\"" + Diagram.dotText(box.label) + "\", shape=parallelogram"
      }
      text += box.isFinal ? ", peripheries=2];\n" : "];\n"
    }
    for arrow in diagram.arrows {
      text += "  " + Self.dotID(arrow.from) + " -> " + Self.dotID(arrow.to)
      var attributes: [String] = []
      if let label = arrow.label {
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
      text += attributes.isEmpty ? ";\n" : " [" + attributes.joined(separator: ", ") + "];\n"
    }
    text += "}\n"
    return text
  }

  /// The attributes of a dispatch's bars.
  private static var dotBar: String { "style=filled, fillcolor=black, fontcolor=white" }

  /// The node ID of one end of an edge: `s3`, or `s3_join` for a join bar.
  private static func dotID(_ end: Diagram.End) -> String {
    end.isJoin ? "s\(end.state)_join" : "s\(end.state)"
  }
}

extension Diagram {
  /// `text` ready to go between `"` in DOT: `"` and `\` escaped with a backslash (a
  /// backslash would otherwise start Graphviz's `\n`, `\l`, `\N`, … in a label), and `&`
  /// written `&amp;` (Graphviz reads HTML entities such as `&lt;` in labels).
  static func dotText(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "&": result += "&amp;"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
