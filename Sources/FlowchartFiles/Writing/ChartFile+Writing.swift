// Writing a chart file: the public `text(in:)` and `checkedText(in:)`, the error of a chart
// XML cannot hold, a `ChartValue` as JSON text, and the `TextWriter` both syntaxes share.
// What each state writes is in ChartNode+Written.swift, once for both syntaxes; each syntax's
// emitter is in TextWriter+JSON.swift and TextWriter+XML.swift.

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

  /// Appends `text` to `output`, each scalar `escape` gives an escape for written as that
  /// escape: what JSON strings and XML attributes share.
  static func append(
    _ text: String, to output: inout String, escaping escape: (Unicode.Scalar) -> String?
  ) {
    for scalar in text.unicodeScalars {
      if let escaped = escape(scalar) {
        output += escaped
      } else {
        output.unicodeScalars.append(scalar)
      }
    }
  }
}
