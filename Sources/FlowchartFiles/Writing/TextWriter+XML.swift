// The XML emitter: a chart file as an XML 1.0 document, indented by two spaces. A
// statement's element, attributes and children (stores, a test, blocks, exits, branches)
// come from its `WrittenStatement` (ChartNode+Written.swift); a state's modifiers are added by
// ChartModifiers+Writing.swift. The first
// attribute XML cannot hold is recorded for `checkedText(in:)`.

import Flowchart

extension TextWriter {
  static func escaped(_ text: String) -> String {
    var output = ""
    append(text, to: &output) { scalar in
      switch scalar {
      case "&": "&amp;"
      case "<": "&lt;"
      case ">": "&gt;"
      case "\"": "&quot;"
      case "\n", "\r", "\t": "&#\(scalar.value);"
      default: nil
      }
    }
    return output
  }

  /// Whether XML 1.0 can hold `scalar` (the production `Char`), escaped or as it is.
  static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x9, 0xA, 0xD: true
    case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
    default: false
    }
  }

  /// `<element name="value" …`'s attributes: ` name="value"` pairs, in order, skipping `nil`
  /// values; the first character XML cannot hold is recorded in ``unwritable``.
  mutating func attributes(_ pairs: [(String, String?)], of element: String) -> String {
    var text = ""
    for (name, value) in pairs {
      guard let value else { continue }
      if unwritable == nil,
        let character = value.unicodeScalars.first(where: { !Self.isXMLCharacter($0) })
      {
        unwritable = ChartWritingError(
          stateName: stateName, element: element, attribute: name, character: character)
      }
      text += " \(name)=\"\(Self.escaped(value))\""
    }
    return text
  }

  /// A value's `value` and `type` attributes; a string XML cannot hold is written as JSON.
  static func valueAttributes(_ value: ChartValue) -> [(String, String?)] {
    switch value {
    case .string(let text) where !text.unicodeScalars.allSatisfy(isXMLCharacter):
      [("value", value.jsonText), ("type", "json")]
    case .string(let text): [("value", text)]
    case .number(let number): [("value", ChartValue.numberText(number)), ("type", "number")]
    case .bool(let flag): [("value", flag ? "true" : "false"), ("type", "boolean")]
    case .null: [("type", "null")]
    case .array, .object: [("value", value.jsonText), ("type", "json")]
    }
  }

  mutating func xml(_ file: ChartFile) {
    line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
    line("<flowchart>")
    indent += 1
    for entry in file.entryPoints {
      xmlEmptyElement("entryPoint", [("state", entry.name)])
    }
    for node in file.states { xmlNode(node) }
    if let outcomes = file.outcomes {
      xmlElement(
        "outcomes", [("mapsEveryEnd", outcomes.mapsEveryEnd ? "true" : nil)],
        isEmpty: outcomes.rules.isEmpty
      ) { writer in
        for rule in outcomes.rules {
          var attributes: [(String, String?)] = [("value", rule.outcome), ("state", rule.state)]
          if let decision = rule.decision?.writtenAttribute { attributes.append(decision) }
          writer.xmlEmptyElement("outcome", attributes)
        }
      }
    }
    indent -= 1
    line("</flowchart>")
  }

  /// An element: `<name …/>` when `isEmpty`, else its start tag, what `children` writes, and
  /// its end tag.
  mutating func xmlElement(
    _ name: String, _ attributes: [(String, String?)], isEmpty: Bool,
    children: (inout TextWriter) -> Void
  ) {
    let start = "<\(name)\(self.attributes(attributes, of: name))"
    guard !isEmpty else {
      line(start + "/>")
      return
    }
    line(start + ">")
    indent += 1
    children(&self)
    indent -= 1
    line("</\(name)>")
  }

  /// An element without children: `<name …/>`.
  mutating func xmlEmptyElement(_ name: String, _ attributes: [(String, String?)]) {
    line("<\(name)\(self.attributes(attributes, of: name))/>")
  }

  /// A multiple condition's or a keyed subflow's exits: `<case key="…">` blocks and a
  /// `<default>`.
  mutating func xmlExits(_ exits: [ChartExit]) {
    for exit in exits {
      if let key = exit.key {
        xmlBlock("case", [("key", key)], exit.states)
      } else {
        xmlBlock("default", [], exit.states)
      }
    }
  }

  mutating func xmlBlock(_ name: String, _ attributes: [(String, String?)], _ nodes: [ChartNode]) {
    xmlElement(name, attributes, isEmpty: nodes.isEmpty) { writer in
      for node in nodes { writer.xmlNode(node) }
    }
  }

  mutating func xmlNode(_ node: ChartNode) {
    let outer = stateName
    stateName = node.stateName ?? outer
    defer { stateName = outer }
    guard node.modifiers.isEmpty else {
      xmlModifiedNode(node)
      return
    }
    let statement = node.kind.written
    var attributes: [(String, String?)] = [(statement.nameAttribute, statement.name)]
    for (name, value) in statement.attributes { attributes.append((name, value?.xmlText)) }
    let contents = statement.contents
    xmlElement(
      statement.element, attributes, isEmpty: contents.allSatisfy(\.isEmptyInXML)
    ) { writer in
      for content in contents { writer.xml(content) }
    }
  }

  /// What a statement holds, as its child elements.
  mutating func xml(_ content: WrittenContent) {
    switch content {
    case .block(let name, let nodes): xmlBlock(name, [], nodes)
    case .exits(let exits): xmlExits(exits)
    case .states(let nodes):
      for node in nodes { xmlNode(node) }
    case .stores(let stores):
      for store in stores {
        xmlEmptyElement("storeValue", [("path", store.path)] + Self.valueAttributes(store.value))
      }
    case .test(let test): xmlTest(test)
    case .branches(let branches):
      for branch in branches {
        xmlElement(
          "branch", [("name", branch.name)], isEmpty: branch.states.isEmpty && branch.after.isEmpty
        ) { writer in
          for name in branch.after { writer.xmlEmptyElement("after", [("branch", name)]) }
          for node in branch.states { writer.xmlNode(node) }
        }
      }
    }
  }

  mutating func xmlTest(_ test: ChartTest) {
    let name = test.kind.element
    switch test.kind {
    case .equal(let path, let value), .less(let path, let value), .greater(let path, let value):
      xmlEmptyElement(name, [("path", path)] + Self.valueAttributes(value))
    case .present(let path):
      xmlEmptyElement(name, [("path", path)])
    case .matches(let path, let pattern):
      xmlEmptyElement(name, [("path", path), ("pattern", pattern)])
    case .all(let tests), .any(let tests):
      xmlElement(name, [], isEmpty: tests.isEmpty) { writer in
        for test in tests { writer.xmlTest(test) }
      }
    case .not(let inner):
      xmlElement(name, [], isEmpty: false) { writer in writer.xmlTest(inner) }
    }
  }
}
