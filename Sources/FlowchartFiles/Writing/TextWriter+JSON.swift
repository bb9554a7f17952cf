// The JSON emitter: a chart file as a JSON object, indented by two spaces. A statement's
// members and blocks come from its `WrittenStatement` (ChartNode+Written.swift): the members
// on one line, or, with blocks (`"yes": [ … ]`, `"exits": [ … ]`, `"branches": [ … ]`), one a
// line and then the blocks; a state's modifiers are added by ChartModifiers+Writing.swift.

import Flowchart

extension TextWriter {
  static func jsonString(_ text: String, to output: inout String) {
    output += "\""
    append(text, to: &output, escaping: jsonEscape)
    output += "\""
  }

  /// How a JSON string writes `scalar`, or `nil` for as it is.
  static func jsonEscape(_ scalar: Unicode.Scalar) -> String? {
    switch scalar {
    case "\"", "\\": return "\\" + String(scalar)
    case "\n": return "\\n"
    case "\r": return "\\r"
    case "\t": return "\\t"
    case _
    where scalar.value < 0x20 || scalar.value == 0x7F
      || scalar.value >= 0xFFFE
        && scalar.value <= 0xFFFF:
      let hex = String(scalar.value, radix: 16, uppercase: true)
      return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    default: return nil
    }
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
          if let (name, value) = rule.decision?.writtenAttribute {
            fields.append("\"\(name)\": \(Self.quoted(value))")
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

  /// A dispatch's `"branches": [ … ]`, with a trailing comma unless `last`.
  mutating func jsonBranches(_ branches: [ChartBranch], last: Bool) {
    guard !branches.isEmpty else {
      line("\"branches\": []" + (last ? "" : ","))
      return
    }
    line("\"branches\": [")
    indent += 1
    for (index, branch) in branches.enumerated() {
      line("{")
      indent += 1
      if let name = branch.name { line("\"name\": \(Self.quoted(name)),") }
      if !branch.after.isEmpty {
        line("\"after\": [\(branch.after.map(Self.quoted).joined(separator: ", "))],")
      }
      jsonBlock(key: "states", branch.states, last: true)
      indent -= 1
      line("}" + (index == branches.count - 1 ? "" : ","))
    }
    indent -= 1
    line("]" + (last ? "" : ","))
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
    let statement = node.kind.written
    var fields = ["\(Self.quoted(statement.element)): \(Self.quoted(statement.name))"]
    for case (let name, let value?) in statement.attributes {
      fields.append("\(Self.quoted(name)): \(value.jsonText)")
    }
    let blocks = statement.contents.filter(\.isJSONBlock)
    jsonObject(
      fields, comma: last ? "" : ",",
      blocks: blocks.isEmpty
        ? nil
        : { writer in
          for (index, block) in blocks.enumerated() {
            writer.json(block, last: index == blocks.count - 1)
          }
        })
  }

  /// A statement's block, after its members, with a trailing comma unless `last`.
  mutating func json(_ content: WrittenContent, last: Bool) {
    switch content {
    case .block(let key, let nodes): jsonBlock(key: key, nodes, last: last)
    case .exits(let exits): jsonExits(exits, last: last)
    case .branches(let branches): jsonBranches(branches, last: last)
    case .states(let states): jsonBlock(key: "states", states, last: last)
    case .stores, .test: break  // Members, written with the others.
    }
  }

  static func jsonTest(_ test: ChartTest) -> String {
    let key = quoted(test.kind.element)
    return switch test.kind {
    case .equal(let path, let value), .less(let path, let value), .greater(let path, let value):
      "{\(key): {\"path\": \(quoted(path)), \"value\": \(value.jsonText)}}"
    case .present(let path):
      "{\(key): \(quoted(path))}"
    case .matches(let path, let pattern):
      "{\(key): {\"path\": \(quoted(path)), \"pattern\": \(quoted(pattern))}}"
    case .all(let tests), .any(let tests):
      "{\(key): [\(tests.map(jsonTest).joined(separator: ", "))]}"
    case .not(let inner):
      "{\(key): \(jsonTest(inner))}"
    }
  }
}
