extension Flowchart {
  /// The chart as a Mermaid flowchart, top to bottom, for Markdown pages that render
  /// fenced code blocks marked `mermaid`.
  ///
  /// ```text
  /// flowchart TD
  ///   s0{"Willing to exercise?"}
  ///   s1["Lift weights"]
  ///   s2["Do sit-ups"]
  ///   s3{"Injured?"}
  ///   s0 -->|"yes"| s1
  ///   s0 -->|"no"| s3
  ///   s1 --> s2
  ///   classDef final stroke-width:4px
  ///   class s2,s3 final
  /// ```
  ///
  /// - Each state is a node named `s` and its index (``StateID/index``): conditions and
  ///   multiple conditions are diamonds, actions rectangles. A dispatch is a dark bar with
  ///   its name where its branches start (class `bar`), and an empty dark bar, `s` and its
  ///   index then `_join`, where they end.
  /// - Arrows are labelled `yes` and `no`, with a multiple condition's keys (and
  ///   `default`), and with a branch's name when it has one. A final state inside a branch
  ///   has an arrow to its dispatch's join bar; the dispatch's own exit leaves from there.
  /// - Final states have class `final`, drawn with a thick border; a final dispatch's join
  ///   bar has it too.
  /// - A subflow is a subroutine box (`[[ ]]`), a map a hexagon (`{{ }}`), a waiting state a
  ///   parallelogram (`[/ /]`), whichever exits they have.
  /// - An arrow back, to a state still on the depth-first walk from the start that reached
  ///   it (the arrows that close cycles), is dotted: `-.->`.
  /// - A dispatch's branch that waits for others (its prerequisites) has a dotted arrow
  ///   labelled `before` from the first state of each prerequisite branch to its own first
  ///   state.
  ///
  /// Names and keys are written as the printed tree writes them (see
  /// ``printTree(to:)``), between `"`: a name with a line break or an invisible character
  /// shows as a string literal, `"a\nb"`. Characters that Mermaid would read as syntax or
  /// markup are written as its entity codes (`#34;` for `"`, `#35;` for `#`, `#59;`,
  /// `#60;`, `#62;`, `#38;`, `#96;` for a backtick, `#124;` for `|`), so any name
  /// renders as it reads.
  ///
  /// - Complexity: O(*n*) in the number of states and exits.
  public var mermaidDescription: String {
    let diagram = Diagram(graph: graph)
    var text = "flowchart TD\n"
    for box in diagram.boxes {
      text += "  "
      text += Self.mermaidID(Diagram.End(state: box.state, isJoin: box.shape == .join))
      switch box.shape {
      case .decision: text += "{\"" + Diagram.mermaidText(box.label) + "\"}\n"
      case .action, .fork: text += "[\"" + Diagram.mermaidText(box.label) + "\"]\n"
      case .join: text += "[\" \"]\n"
      case .subflow: text += "[[\"" + Diagram.mermaidText(box.label) + "\"]]\n"
      case .map: text += "{{\"" + Diagram.mermaidText(box.label) + "\"}}\n"
      case .wait: text += "[/\"" + Diagram.mermaidText(box.label) + "\"/]\n"
      }
    }
    for arrow in diagram.arrows {
      text += "  " + Self.mermaidID(arrow.from)
      text += arrow.isBack || arrow.isPrerequisite || arrow.isCatch ? " -.->" : " -->"
      if let label = arrow.label {
        text += "|\"" + Diagram.mermaidText(label) + "\"|"
      }
      text += " " + Self.mermaidID(arrow.to) + "\n"
    }
    let finals = diagram.boxes.filter(\.isFinal)
    let bars = diagram.boxes.filter { $0.shape == .fork || $0.shape == .join }
    if !finals.isEmpty {
      text += "  classDef final stroke-width:4px\n"
    }
    if !bars.isEmpty {
      text += "  classDef bar fill:black,stroke:black,color:white\n"
    }
    if !finals.isEmpty {
      text += "  class " + Self.mermaidIDs(finals) + " final\n"
    }
    if !bars.isEmpty {
      text += "  class " + Self.mermaidIDs(bars) + " bar\n"
    }
    return text
  }

  /// The node ID of one end of an arrow: `s3`, or `s3_join` for a join bar.
  private static func mermaidID(_ end: Diagram.End) -> String {
    end.isJoin ? "s\(end.state)_join" : "s\(end.state)"
  }

  /// The IDs of `boxes`, separated by commas.
  private static func mermaidIDs(_ boxes: [Diagram.Box]) -> String {
    boxes.map { mermaidID(Diagram.End(state: $0.state, isJoin: $0.shape == .join)) }
      .joined(separator: ",")
  }
}

extension Diagram {
  /// `text` ready to go between `"` in Mermaid: every character Mermaid reads as syntax,
  /// as HTML or as Markdown, and the two it uses to mark entity codes internally, written
  /// as an entity code.
  static func mermaidText(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"", "#", ";", "<", ">", "&", "`", "|", "\u{B6}", "\u{FB02}":
        result += "#\(scalar.value);"
      default:
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
