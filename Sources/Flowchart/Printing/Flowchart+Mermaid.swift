extension Flowchart {
  /// The chart as a Mermaid flowchart, top to bottom, for Markdown pages that render
  /// fenced code blocks marked `mermaid`.
  ///
  /// ```text
  /// flowchart TD
  ///   s0{"Willing to exercise?"}
  ///   s1["Lift weights"]
  ///   s2["Do sit-ups"]
  ///   s2_end(((" ")))
  ///   s3{"Injured?"}
  ///   s3_end(((" ")))
  ///   s0 -->|"yes"| s1
  ///   s0 -->|"no"| s3
  ///   s1 --> s2
  ///   s2 --> s2_end
  ///   s3 --> s3_end
  /// ```
  ///
  /// - Each state is a node named `s` and its index (``StateID/index``), in its kind's shape:
  ///   a condition is a rhombus (`{"…"}`), a multiple condition a hexagon (`{{"…"}}`), an
  ///   action a rectangle (`["…"]`), a waiting state a parallelogram (`[/"…"/]`), a subflow
  ///   a subroutine box (`[["…"]]`), a map a trapezoid (`[/"…"\]`), a delay a stadium
  ///   (`(["…"])`), with its timing on a second line (`[for 3 days]`). A dispatch is a dark
  ///   bar with its name where its branches start (class `bar`), and an empty dark bar, `s`
  ///   and its index then `_join`, where they end.
  /// - A state with a timeout or retries shows them on a second line of its label (after a
  ///   `<br>`), as the printed tree does: `[timeout 30s, retry ×3 (fixed 1s)]`.
  /// - Arrows are labelled `yes` and `no`, with a multiple condition's keys (and
  ///   `default`), and with a branch's name when it has one.
  /// - A final state of the top level, where the run ends, has an arrow to an end mark of
  ///   its own: a small double circle (`(((" ")))`) named `s` and its index then `_end`
  ///   (after a final dispatch's join bar). A final state inside a branch ends only its
  ///   branch: it has an arrow to its dispatch's join bar instead, and the dispatch's own
  ///   exit leaves from there.
  /// - A catch route is a dotted red arrow (`-.->`, styled by a `linkStyle` line) labelled
  ///   `catch`, or `catch` and the error type it takes, from the state to the route's
  ///   target.
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
  public var mermaidDescription: String { mermaidText(run: nil) }

  /// The Mermaid text, with `run` drawn on it when there is one (see
  /// ``mermaidDescription(showing:)``).
  func mermaidText(run: RunOverlay?) -> String {
    let diagram = Diagram(graph: graph)
    let marks = run.map { RunMarks($0, on: diagram) }
    var text = "flowchart TD\n"
    for (index, box) in diagram.boxes.enumerated() {
      text += "  " + box.id
      var label = Diagram.mermaidLabel(box)
      for note in marks?.notes[index] ?? [] {
        label += (label.isEmpty ? "" : "<br>") + Diagram.mermaidText(note)
      }
      switch box.shape {
      case .decision: text += "{\"" + label + "\"}\n"
      case .keyedDecision: text += "{{\"" + label + "\"}}\n"
      case .action, .fork: text += "[\"" + label + "\"]\n"
      case .join: text += "[\" \"]\n"
      case .subflow: text += "[[\"" + label + "\"]]\n"
      case .map: text += "[/\"" + label + "\"\\]\n"
      case .wait: text += "[/\"" + label + "\"/]\n"
      case .delay: text += "([\"" + label + "\"])\n"
      case .end: text += "(((\" \")))\n"
      }
    }
    var catches: [Int] = []
    for (index, arrow) in diagram.arrows.enumerated() {
      text += "  " + Diagram.id(arrow.from)
      text += arrow.isBack || arrow.isPrerequisite || arrow.isCatch ? " -.->" : " -->"
      var label = arrow.label
      if let count = marks?.countLabel(ofArrow: index) {
        label = (label.map { $0 + " " } ?? "") + count
      }
      if let label {
        text += "|\"" + Diagram.mermaidText(label) + "\"|"
      }
      text += " " + Diagram.id(arrow.to) + "\n"
      if arrow.isCatch { catches.append(index) }
    }
    // A run's drawing styles a bar that failed or was never reached by its class instead.
    let bars = diagram.boxes.indices.filter { index in
      let shape = diagram.boxes[index].shape
      return (shape == .fork || shape == .join) && (marks?.classes[index] ?? .entered) == .entered
    }.map { diagram.boxes[$0] }
    if !bars.isEmpty {
      text += "  classDef bar fill:black,stroke:black,color:white\n"
      text += "  class " + bars.map(\.id).joined(separator: ",") + " bar\n"
    }
    if !catches.isEmpty {
      // Mermaid numbers links from 0 in the order they are written.
      text += "  linkStyle " + catches.map(String.init).joined(separator: ",")
      text += " stroke:red,color:red\n"
    }
    if let marks { text += Diagram.mermaidRunStyles(marks, diagram: diagram) }
    return text
  }
}

extension Diagram {
  /// The `classDef`, `class` and `linkStyle` lines that draw a run: each box's class (a
  /// bar keeps its own colours unless it failed or was never reached), the arrows taken
  /// thick and green, the others faded.
  static func mermaidRunStyles(_ marks: RunMarks, diagram: Diagram) -> String {
    var text = ""
    text += "  classDef entered fill:#d8f0d8,stroke:#2e7d32,color:black\n"
    text += "  classDef failed fill:#f8d0d0,stroke:#c62828,stroke-width:3px,color:black\n"
    text += "  classDef cancelled fill:#fde9c8,stroke:#ef6c00,stroke-width:3px,color:black\n"
    text += "  classDef unreached fill:#f4f4f4,stroke:#bbbbbb,color:#999999\n"
    for boxClass in [RunMarks.BoxClass.entered, .failed, .cancelled, .unreached] {
      let ids = diagram.boxes.indices.filter { index in
        let box = diagram.boxes[index]
        let isBar = box.shape == .fork || box.shape == .join
        return marks.classes[index] == boxClass && !(isBar && boxClass == .entered)
      }.map { diagram.boxes[$0].id }
      if !ids.isEmpty {
        text += "  class " + ids.joined(separator: ",") + " " + boxClass.rawValue + "\n"
      }
    }
    var taken: [String] = []
    var faded: [String] = []
    var gaps: [String] = []
    for (index, count) in marks.counts.enumerated() {
      guard let count else { continue }
      if count > 0 {
        taken.append(String(index))
      } else if marks.gaps[index] {
        gaps.append(String(index))
      } else if !diagram.arrows[index].isCatch {
        faded.append(String(index))
      }
    }
    if !taken.isEmpty {
      text += "  linkStyle " + taken.joined(separator: ",") + " stroke:#2e7d32,stroke-width:3px\n"
    }
    if !gaps.isEmpty {
      text += "  linkStyle " + gaps.joined(separator: ",")
      text += " stroke:#c62828,color:#c62828,stroke-dasharray:4\n"
    }
    if !faded.isEmpty {
      text += "  linkStyle " + faded.joined(separator: ",") + " stroke:#cccccc,color:#999999\n"
    }
    return text
  }
}

extension Diagram {
  /// The label of `box` ready to go between `"` in Mermaid: its name, and its modifiers on
  /// a second line (`<br>`), each escaped by ``mermaidText(_:)``.
  static func mermaidLabel(_ box: Box) -> String {
    label(box, lineBreak: "<br>", escape: mermaidText)
  }

  /// `text` ready to go between `"` in Mermaid: every character Mermaid reads as syntax,
  /// as HTML or as Markdown, and the two it uses to mark entity codes internally, written
  /// as an entity code.
  static func mermaidText(_ text: String) -> String {
    DisplayText.replacing(in: text) { scalar in
      switch scalar {
      case "\"", "#", ";", "<", ">", "&", "`", "|", "\u{B6}", "\u{FB02}": "#\(scalar.value);"
      default: nil
      }
    }
  }
}
