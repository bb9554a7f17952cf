import Flowchart

extension ChartFile {
  /// The file's text in `syntax`: what reading gives this tree back (its locations aside).
  ///
  /// Includes are written as `include` statements; the files they include are not written.
  /// The text is indented by two spaces and ends with a line break. The writer recurses once
  /// per level of nesting: a file read is at most 100 levels of states deep.
  ///
  /// A string value XML 1.0 cannot hold (a control character, U+FFFE, U+FFFF) is written as
  /// a JSON string, which reads back the same; such a character in a name, a key, a path or
  /// another attribute is written as it is, and that XML does not read back:
  /// ``checkedText(in:)`` throws instead.
  public func text(in syntax: ChartSyntax) -> String {
    var writer = TextWriter()
    switch syntax {
    case .json: writer.json(self)
    case .xml: writer.xml(self)
    }
    return writer.output
  }

  /// The file's text in `syntax`, as ``text(in:)`` writes it, or an error when the syntax
  /// cannot hold the chart: what this returns, reading gives back as the same tree.
  ///
  /// JSON holds every chart. XML 1.0 cannot hold a control character other than tab, line
  /// feed and carriage return, nor U+FFFE or U+FFFF, even as a character reference: a
  /// string value holding one is written as a JSON string (`type="json"`), which reads back
  /// the same, but a name, a key, a path or another attribute holding one cannot be written.
  ///
  /// - Throws: A ``ChartWritingError`` naming the state, the attribute and the character,
  ///   for the first such attribute.
  public func checkedText(in syntax: ChartSyntax) throws(ChartWritingError) -> String {
    var writer = TextWriter()
    switch syntax {
    case .json: writer.json(self)
    case .xml: writer.xml(self)
    }
    if let unwritable = writer.unwritable { throw unwritable }
    return writer.output
  }
}

/// A chart that cannot be written in a syntax: XML 1.0 cannot hold some characters in an
/// attribute, even escaped.
public struct ChartWritingError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The state whose element holds the character, or `nil` for an element of the chart
  /// itself (an entry point, an outcome).
  public var stateName: String?
  /// The XML element that holds the character, such as `storeValue`.
  public var element: String
  /// The attribute that holds the character, such as `path`.
  public var attribute: String
  /// The character XML cannot hold.
  public var character: Unicode.Scalar

  /// Creates the error of `character` in `attribute` of `element`, in the state `stateName`.
  package init(
    stateName: String?, element: String, attribute: String, character: Unicode.Scalar
  ) {
    self.stateName = stateName
    self.element = element
    self.attribute = attribute
    self.character = character
  }

  /// What cannot be written, where, and what to do, in one sentence.
  public var description: String {
    let hex = String(character.value, radix: 16, uppercase: true)
    let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    let kind = character.value < 0x20 ? "a control character" : "a noncharacter"
    let place = stateName.map { " of state '\(Self.shown($0))'" } ?? ""
    return
      "The chart cannot be written as XML: the attribute \(attribute) of <\(element)>\(place) holds \(code), \(kind) that XML 1.0 cannot hold, even escaped. Remove the character, or keep the chart in JSON."
  }

  /// `name` with its control characters and noncharacters written as `\u{…}`, its first 60
  /// characters only.
  static func shown(_ name: String) -> String {
    var text = ""
    for (index, scalar) in name.unicodeScalars.enumerated() {
      guard index < 60 else { return text + "…" }
      if scalar.value < 0x20 || scalar.value == 0x7F || !TextWriter.isXMLCharacter(scalar) {
        text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      } else {
        text.unicodeScalars.append(scalar)
      }
    }
    return text
  }
}

extension ChartValue {
  /// The value as compact JSON text, object keys sorted.
  public var jsonText: String {
    var output = ""
    write(to: &output)
    return output
  }

  func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .number(let value): output += Self.numberText(value)
    case .string(let value): TextWriter.jsonString(value, to: &output)
    case .array(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += ", " }
        element.write(to: &output)
      }
      output += "]"
    case .object(let members):
      output += "{"
      for (index, key) in members.keys.sorted().enumerated() {
        if index > 0 { output += ", " }
        TextWriter.jsonString(key, to: &output)
        output += ": "
        members[key]!.write(to: &output)
      }
      output += "}"
    }
  }

  /// A number as JSON: an integer without a fraction when it is one, else Swift's shortest
  /// text that reads back the same `Double`.
  static func numberText(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    if value == value.rounded(), abs(value) < 1e15 {
      return value == 0 ? "0" : String(Int64(value))
    }
    return "\(value)"
  }
}

/// Writes a chart file's tree as JSON or XML text.
struct TextWriter {
  var output = ""
  var indent = 0
  /// The first attribute written that holds a character XML cannot hold, if any.
  var unwritable: ChartWritingError?
  /// The state whose element is being written, if any.
  var stateName: String?

  mutating func line(_ text: String) {
    output += String(repeating: "  ", count: indent)
    output += text
    output += "\n"
  }

  // MARK: - JSON

  static func jsonString(_ text: String, to output: inout String) {
    output += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case _
      where scalar.value < 0x20 || scalar.value == 0x7F
        || scalar.value >= 0xFFFE
          && scalar.value <= 0xFFFF:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }

  static func quoted(_ text: String) -> String {
    var output = ""
    jsonString(text, to: &output)
    return output
  }

  mutating func json(_ file: ChartFile) {
    line("{")
    indent += 1
    if !file.entryPoints.isEmpty {
      let names = file.entryPoints.map { Self.quoted($0.name) }.joined(separator: ", ")
      line("\"entryPoints\": [\(names)],")
    }
    jsonBlock(key: "flowchart", file.states, last: file.outcomes == nil)
    if let outcomes = file.outcomes {
      line("\"outcomes\": {")
      indent += 1
      if outcomes.mapsEveryEnd { line("\"mapsEveryEnd\": true,") }
      if outcomes.rules.isEmpty {
        line("\"rules\": []")
      } else {
        line("\"rules\": [")
        indent += 1
        for (index, rule) in outcomes.rules.enumerated() {
          var fields = [
            "\"outcome\": \(Self.quoted(rule.outcome))", "\"state\": \(Self.quoted(rule.state))",
          ]
          switch rule.decision {
          case nil: break
          case .yes?: fields.append("\"decision\": \"yes\"")
          case .no?: fields.append("\"decision\": \"no\"")
          case .done?: fields.append("\"decision\": \"done\"")
          case .key(let key)?: fields.append("\"key\": \(Self.quoted(key))")
          }
          line(
            "{" + fields.joined(separator: ", ") + "}"
              + (index == outcomes.rules.count - 1 ? "" : ","))
        }
        indent -= 1
        line("]")
      }
      indent -= 1
      line("}")
    }
    indent -= 1
    line("}")
  }

  /// A multiple condition's or keyed subflow's `"exits": [ … ]`, with a trailing comma unless
  /// `last`.
  mutating func jsonExits(_ exits: [ChartExit], last: Bool) {
    let comma = last ? "" : ","
    guard !exits.isEmpty else {
      line("\"exits\": []" + comma)
      return
    }
    line("\"exits\": [")
    indent += 1
    for (index, exit) in exits.enumerated() {
      let exitComma = index == exits.count - 1 ? "" : ","
      line("{")
      indent += 1
      if let key = exit.key {
        line("\"case\": \(Self.quoted(key)),")
        jsonBlock(key: "states", exit.states, last: true)
      } else {
        jsonBlock(key: "default", exit.states, last: true)
      }
      indent -= 1
      line("}" + exitComma)
    }
    indent -= 1
    line("]" + comma)
  }

  /// `"key": [ … ]` with its trailing comma unless `last`.
  mutating func jsonBlock(key: String?, _ nodes: [ChartNode], last: Bool) {
    let opening = key.map { "\(Self.quoted($0)): " } ?? ""
    let comma = last ? "" : ","
    guard !nodes.isEmpty else {
      line(opening + "[]" + comma)
      return
    }
    line(opening + "[")
    indent += 1
    for (index, node) in nodes.enumerated() {
      jsonNode(node, last: index == nodes.count - 1)
    }
    indent -= 1
    line("]" + comma)
  }

  /// A state's object: `fields` on one line, or, with `blocks`, one field a line and then
  /// what `blocks` writes (its blocks, the last without a comma).
  mutating func jsonObject(
    _ fields: [String], comma: String, blocks: ((inout Self) -> Void)? = nil
  ) {
    guard let blocks else {
      line("{" + fields.joined(separator: ", ") + "}" + comma)
      return
    }
    line("{")
    indent += 1
    for field in fields { line(field + ",") }
    blocks(&self)
    indent -= 1
    line("}" + comma)
  }

  mutating func jsonNode(_ node: ChartNode, last: Bool) {
    guard node.modifiers.isEmpty else {
      jsonModifiedNode(node, last: last)
      return
    }
    let comma = last ? "" : ","
    var fields: [String] = []
    switch node.kind {
    case .goTo(let target):
      line("{\"goTo\": \(Self.quoted(target))}" + comma)
      return
    case .include(let path):
      line("{\"include\": \(Self.quoted(path))}" + comma)
      return
    case .action(let action):
      fields.append("\"action\": \(Self.quoted(action.name))")
      if action.isFinal { fields.append("\"final\": true") }
      if let run = action.handler { fields.append("\"run\": \(Self.quoted(run))") }
      if !action.stores.isEmpty {
        let stores = action.stores.map {
          "{\"path\": \(Self.quoted($0.path)), \"value\": \($0.value.jsonText)}"
        }
        fields.append("\"store\": [\(stores.joined(separator: ", "))]")
      }
      if let failure = action.failure { fields.append("\"fail\": \(Self.quoted(failure))") }
      jsonObject(fields, comma: comma)
    case .condition(let condition):
      fields.append("\"condition\": \(Self.quoted(condition.name))")
      if condition.isFinal { fields.append("\"final\": true") }
      switch condition.decision {
      case .handler(let run): fields.append("\"run\": \(Self.quoted(run))")
      case .test(let test): fields.append("\"test\": \(Self.jsonTest(test))")
      }
      let hasBlocks = condition.yes != nil || condition.no != nil
      jsonObject(
        fields, comma: comma,
        blocks: !hasBlocks
          ? nil
          : { writer in
            if let yes = condition.yes {
              writer.jsonBlock(key: "yes", yes, last: condition.no == nil)
            }
            if let no = condition.no { writer.jsonBlock(key: "no", no, last: true) }
          })
    case .multipleCondition(let condition):
      fields.append("\"multipleCondition\": \(Self.quoted(condition.name))")
      if condition.isFinal { fields.append("\"final\": true") }
      switch condition.decision {
      case .handler(let run): fields.append("\"run\": \(Self.quoted(run))")
      case .value(let path): fields.append("\"value\": \(Self.quoted(path))")
      }
      jsonObject(
        fields, comma: comma,
        blocks: condition.exits.map { exits in
          { writer in writer.jsonExits(exits, last: true) }
        })
    case .dispatch(let dispatch):
      line("{")
      indent += 1
      line("\"dispatch\": \(Self.quoted(dispatch.name)),")
      if dispatch.isFinal { line("\"final\": true,") }
      if let merge = dispatch.merge { line("\"merge\": \(Self.quoted(merge)),") }
      if let changes = dispatch.changes { line("\"changes\": \(Self.quoted(changes.rawValue)),") }
      if let limit = dispatch.maxConcurrency { line("\"maxConcurrency\": \(limit),") }
      if dispatch.join != .all { line("\"join\": \(Self.quoted(dispatch.join.text)),") }
      if dispatch.branches.isEmpty {
        line("\"branches\": []")
      } else {
        line("\"branches\": [")
        indent += 1
        for (index, branch) in dispatch.branches.enumerated() {
          line("{")
          indent += 1
          if let name = branch.name { line("\"name\": \(Self.quoted(name)),") }
          if !branch.after.isEmpty {
            line("\"after\": [\(branch.after.map(Self.quoted).joined(separator: ", "))],")
          }
          jsonBlock(key: "states", branch.states, last: true)
          indent -= 1
          line("}" + (index == dispatch.branches.count - 1 ? "" : ","))
        }
        indent -= 1
        line("]")
      }
      indent -= 1
      line("}" + comma)
    case .wait(let wait):
      fields.append("\"wait\": \(Self.quoted(wait.name))")
      if wait.isFinal { fields.append("\"final\": true") }
      switch wait.input {
      case .handler(let run): fields.append("\"run\": \(Self.quoted(run))")
      case .store(let path): fields.append("\"storeAt\": \(Self.quoted(path))")
      }
      jsonObject(fields, comma: comma)
    case .subflow(let subflow):
      fields.append("\"subflow\": \(Self.quoted(subflow.name))")
      if subflow.isFinal { fields.append("\"final\": true") }
      fields.append("\"chart\": \(Self.quoted(subflow.chart))")
      if let path = subflow.contextPath { fields.append("\"context\": \(Self.quoted(path))") }
      if let name = subflow.mapping { fields.append("\"mapping\": \(Self.quoted(name))") }
      switch subflow.exits {
      case .none:
        jsonObject(fields, comma: comma)
      case .yesNo(let yes, let no):
        jsonObject(fields, comma: comma) { writer in
          writer.jsonBlock(key: "yes", yes, last: false)
          writer.jsonBlock(key: "no", no, last: true)
        }
      case .keyed(let exits):
        jsonObject(fields, comma: comma) { writer in
          writer.jsonExits(exits, last: true)
        }
      }
    case .map(let map):
      fields.append("\"map\": \(Self.quoted(map.name))")
      if map.isFinal { fields.append("\"final\": true") }
      fields.append("\"over\": \(Self.quoted(map.over))")
      if let into = map.into { fields.append("\"into\": \(Self.quoted(into))") }
      if let limit = map.maxConcurrency { fields.append("\"maxConcurrency\": \(limit)") }
      if map.toleratedFailures != 0 {
        fields.append("\"toleratedFailures\": \(map.toleratedFailures)")
      }
      switch map.chart {
      case .file(let path):
        fields.append("\"chart\": \(Self.quoted(path))")
        jsonObject(fields, comma: comma)
      case .states(let states):
        jsonObject(fields, comma: comma) { writer in
          writer.jsonBlock(key: "states", states, last: true)
        }
      }
    }
  }

  static func jsonTest(_ test: ChartTest) -> String {
    switch test.kind {
    case .equal(let path, let value):
      "{\"equal\": {\"path\": \(quoted(path)), \"value\": \(value.jsonText)}}"
    case .less(let path, let value):
      "{\"less\": {\"path\": \(quoted(path)), \"value\": \(value.jsonText)}}"
    case .greater(let path, let value):
      "{\"greater\": {\"path\": \(quoted(path)), \"value\": \(value.jsonText)}}"
    case .present(let path):
      "{\"present\": \(quoted(path))}"
    case .matches(let path, let pattern):
      "{\"matches\": {\"path\": \(quoted(path)), \"pattern\": \(quoted(pattern))}}"
    case .all(let tests):
      "{\"all\": [\(tests.map(jsonTest).joined(separator: ", "))]}"
    case .any(let tests):
      "{\"any\": [\(tests.map(jsonTest).joined(separator: ", "))]}"
    case .not(let inner):
      "{\"not\": \(jsonTest(inner))}"
    }
  }

  // MARK: - XML

  static func escaped(_ text: String) -> String {
    var output = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": output += "&amp;"
      case "<": output += "&lt;"
      case ">": output += "&gt;"
      case "\"": output += "&quot;"
      case "\n": output += "&#10;"
      case "\r": output += "&#13;"
      case "\t": output += "&#9;"
      default: output.unicodeScalars.append(scalar)
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
      line("<entryPoint\(attributes([("state", entry.name)], of: "entryPoint"))/>")
    }
    for node in file.states { xmlNode(node) }
    if let outcomes = file.outcomes {
      xmlElement(
        "outcomes", [("mapsEveryEnd", outcomes.mapsEveryEnd ? "true" : nil)],
        isEmpty: outcomes.rules.isEmpty
      ) { writer in
        for rule in outcomes.rules {
          var attributes: [(String, String?)] = [("value", rule.outcome), ("state", rule.state)]
          switch rule.decision {
          case nil: break
          case .yes?: attributes.append(("decision", "yes"))
          case .no?: attributes.append(("decision", "no"))
          case .done?: attributes.append(("decision", "done"))
          case .key(let key)?: attributes.append(("key", key))
          }
          writer.line("<outcome\(writer.attributes(attributes, of: "outcome"))/>")
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
    switch node.kind {
    case .goTo(let target):
      line("<goTo\(attributes([("state", target)], of: "goTo"))/>")
    case .include(let path):
      line("<include\(attributes([("path", path)], of: "include"))/>")
    case .action(let action):
      let attributes = [
        ("name", action.name), ("final", action.isFinal ? "true" : nil), ("run", action.handler),
        ("fail", action.failure),
      ]
      xmlElement("action", attributes, isEmpty: action.stores.isEmpty) { writer in
        for store in action.stores {
          writer.line(
            "<storeValue\(writer.attributes([("path", store.path)] + Self.valueAttributes(store.value), of: "storeValue"))/>"
          )
        }
      }
    case .condition(let condition):
      var attributes = [("name", condition.name), ("final", condition.isFinal ? "true" : nil)]
      if case .handler(let run) = condition.decision { attributes.append(("run", run)) }
      var isEmpty = condition.yes == nil && condition.no == nil
      if case .test = condition.decision { isEmpty = false }
      xmlElement("condition", attributes, isEmpty: isEmpty) { writer in
        if case .test(let test) = condition.decision { writer.xmlTest(test) }
        if let yes = condition.yes { writer.xmlBlock("yes", [], yes) }
        if let no = condition.no { writer.xmlBlock("no", [], no) }
      }
    case .multipleCondition(let condition):
      var attributes = [("name", condition.name), ("final", condition.isFinal ? "true" : nil)]
      switch condition.decision {
      case .handler(let run): attributes.append(("run", run))
      case .value(let path): attributes.append(("value", path))
      }
      xmlElement("multipleCondition", attributes, isEmpty: condition.exits?.isEmpty ?? true) {
        writer in writer.xmlExits(condition.exits ?? [])
      }
    case .dispatch(let dispatch):
      let attributes = [
        ("name", dispatch.name), ("final", dispatch.isFinal ? "true" : nil),
        ("merge", dispatch.merge), ("changes", dispatch.changes?.rawValue),
        ("maxConcurrency", dispatch.maxConcurrency.map { "\($0)" }),
        ("join", dispatch.join == .all ? nil : dispatch.join.text),
      ]
      xmlElement("dispatch", attributes, isEmpty: dispatch.branches.isEmpty) { writer in
        for branch in dispatch.branches {
          writer.xmlElement(
            "branch", [("name", branch.name)],
            isEmpty: branch.states.isEmpty && branch.after.isEmpty
          ) { writer in
            for name in branch.after {
              writer.line("<after\(writer.attributes([("branch", name)], of: "after"))/>")
            }
            for node in branch.states { writer.xmlNode(node) }
          }
        }
      }
    case .wait(let wait):
      var attributes = [("name", wait.name), ("final", wait.isFinal ? "true" : nil)]
      switch wait.input {
      case .handler(let run): attributes.append(("run", run))
      case .store(let path): attributes.append(("storeAt", path))
      }
      line("<wait\(self.attributes(attributes, of: "wait"))/>")
    case .subflow(let subflow):
      let attributes = [
        ("name", subflow.name), ("final", subflow.isFinal ? "true" : nil),
        ("chart", subflow.chart), ("context", subflow.contextPath),
        ("mapping", subflow.mapping),
      ]
      switch subflow.exits {
      case .none:
        line("<subflow\(self.attributes(attributes, of: "subflow"))/>")
      case .yesNo(let yes, let no):
        xmlElement("subflow", attributes, isEmpty: false) { writer in
          writer.xmlBlock("yes", [], yes)
          writer.xmlBlock("no", [], no)
        }
      case .keyed(let exits):
        xmlElement("subflow", attributes, isEmpty: exits.isEmpty) { writer in
          writer.xmlExits(exits)
        }
      }
    case .map(let map):
      var attributes = [
        ("name", map.name), ("final", map.isFinal ? "true" : nil), ("over", map.over),
        ("into", map.into), ("maxConcurrency", map.maxConcurrency.map { "\($0)" }),
        ("toleratedFailures", map.toleratedFailures == 0 ? nil : "\(map.toleratedFailures)"),
      ]
      switch map.chart {
      case .file(let path):
        attributes.append(("chart", path))
        line("<map\(self.attributes(attributes, of: "map"))/>")
      case .states(let states):
        xmlBlock("map", attributes, states)
      }
    }
  }

  mutating func xmlTest(_ test: ChartTest) {
    switch test.kind {
    case .equal(let path, let value):
      line("<equal\(attributes([("path", path)] + Self.valueAttributes(value), of: "equal"))/>")
    case .less(let path, let value):
      line("<less\(attributes([("path", path)] + Self.valueAttributes(value), of: "less"))/>")
    case .greater(let path, let value):
      line("<greater\(attributes([("path", path)] + Self.valueAttributes(value), of: "greater"))/>")
    case .present(let path):
      line("<present\(attributes([("path", path)], of: "present"))/>")
    case .matches(let path, let pattern):
      line("<matches\(attributes([("path", path), ("pattern", pattern)], of: "matches"))/>")
    case .all(let tests):
      xmlElement("all", [], isEmpty: tests.isEmpty) { writer in
        for test in tests { writer.xmlTest(test) }
      }
    case .any(let tests):
      xmlElement("any", [], isEmpty: tests.isEmpty) { writer in
        for test in tests { writer.xmlTest(test) }
      }
    case .not(let inner):
      xmlElement("not", [], isEmpty: false) { writer in writer.xmlTest(inner) }
    }
  }
}
