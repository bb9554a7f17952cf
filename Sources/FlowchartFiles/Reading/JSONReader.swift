// A JSON parser that keeps where every value and every object key starts (Foundation's
// JSONSerialization gives no locations), with its limits (depth, duplicate keys) and the
// words of its syntax errors. Over 500 lines for one reason: the scanner, the grammar of
// values and the errors' wording are one loop over one cursor, which splitting by file would
// scatter without making any part shorter to read.

import Flowchart

/// A JSON value as read, with where each value and each object key starts.
struct JSONNode {
  indirect enum Kind {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONNode])
    case object([Member])
  }

  /// An object's member, in the order written.
  struct Member {
    var key: String
    var keyLocation: SourceLocation
    var value: JSONNode
  }

  var kind: Kind
  var location: SourceLocation

  /// The kind of value, in words, for messages.
  var typeName: String {
    switch kind {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The value as a ``ChartValue``, without locations.
  var chartValue: ChartValue {
    switch kind {
    case .null: .null
    case .bool(let value): .bool(value)
    case .number(let value): .number(value)
    case .string(let value): .string(value)
    case .array(let elements): .array(elements.map(\.chartValue))
    case .object(let members):
      .object(Dictionary(members.map { ($0.key, $0.value.chartValue) }, uniquingKeysWith: { $1 }))
    }
  }
}

/// A syntax error: what is wrong, where.
struct SyntaxError: Error {
  var message: String
  var location: SourceLocation
  /// Whether the error stands in the middle of the text, so that reading stopped before
  /// whatever follows it (a missing comma, a tag that does not match), which a chart file's
  /// message then says; not an empty, truncated or wrongly encoded file.
  var hidesWhatFollows = false
}

/// Parses JSON text (RFC 8259): into a ``JSONNode`` tree that records the line and column of
/// every value and key (a chart file), or straight into a ``ChartValue`` (a value alone, with
/// no tree in between).
///
/// Both refuse duplicate keys, invalid UTF-8 and nesting deeper than ``maximumDepth``, and
/// never recurse deeper than that. Columns count Unicode scalars from 1; a tab counts one.
enum JSONReader {
  /// The deepest nesting of arrays and objects a file may have.
  static var maximumDepth: Int { 512 }

  /// Parses `bytes` as one JSON value, with the location of every value and key.
  ///
  /// - Parameter subject: What the bytes are, in messages: `file` (a chart file, whose
  ///   nesting the messages tell to flatten) or `value` (a value alone).
  static func parse(_ bytes: [UInt8], path: String, subject: String = "file") throws(SyntaxError)
    -> JSONNode
  {
    try JSONParser<JSONNodeBuilder>.parse(bytes, path: path, subject: subject)
  }

  /// Parses `bytes` as one JSON value, without locations: the same checks and messages as
  /// ``parse(_:path:subject:)``, in one allocation a nested array or object.
  static func value(_ bytes: [UInt8], path: String, subject: String = "file") throws(SyntaxError)
    -> ChartValue
  {
    try JSONParser<ChartValueBuilder>.parse(bytes, path: path, subject: subject)
  }

  /// `text` as a message quotes it: its first 60 characters, then `…`.
  static func clipped(_ text: String) -> String {
    text.count <= 60 ? text : text.prefix(60) + "…"
  }
}

/// What a ``JSONParser`` builds its values into: the parser reads the syntax, a builder makes
/// the values, so that a value alone is not built twice (once as a tree, once as a value).
protocol JSONValueBuilder {
  associatedtype Value
  /// An object's members while it is read.
  associatedtype Members

  static func null(at location: SourceLocation) -> Value
  static func bool(_ value: Bool, at location: SourceLocation) -> Value
  static func number(_ value: Double, at location: SourceLocation) -> Value
  static func string(_ value: String, at location: SourceLocation) -> Value
  static func array(_ elements: [Value], at location: SourceLocation) -> Value
  static func object(_ members: Members, at location: SourceLocation) -> Value
  static func emptyMembers() -> Members
  /// Whether `members` already holds `key`.
  static func contains(_ key: String, in members: inout Members) -> Bool
  /// Adds a member whose key `members` does not hold.
  static func add(
    _ key: String, at keyLocation: SourceLocation, _ value: Value, to members: inout Members)
}

/// Builds a ``JSONNode`` tree, with locations, members in the order written.
enum JSONNodeBuilder: JSONValueBuilder {
  /// The members in order, and their keys once there are enough to search by hash.
  struct Members {
    var list: [JSONNode.Member] = []
    var keys: Set<String> = []
  }

  static func null(at location: SourceLocation) -> JSONNode {
    JSONNode(kind: .null, location: location)
  }
  static func bool(_ value: Bool, at location: SourceLocation) -> JSONNode {
    JSONNode(kind: .bool(value), location: location)
  }
  static func number(_ value: Double, at location: SourceLocation) -> JSONNode {
    JSONNode(kind: .number(value), location: location)
  }
  static func string(_ value: String, at location: SourceLocation) -> JSONNode {
    JSONNode(kind: .string(value), location: location)
  }
  static func array(_ elements: [JSONNode], at location: SourceLocation) -> JSONNode {
    JSONNode(kind: .array(elements), location: location)
  }
  static func object(_ members: Members, at location: SourceLocation) -> JSONNode {
    JSONNode(kind: .object(members.list), location: location)
  }
  static func emptyMembers() -> Members { Members() }

  static func contains(_ key: String, in members: inout Members) -> Bool {
    // Duplicates are found by a scan while the object is small, which most are.
    if members.list.count < 16 { return members.list.contains { $0.key == key } }
    if members.keys.isEmpty { members.keys = Set(members.list.map(\.key)) }
    return members.keys.contains(key)
  }

  static func add(
    _ key: String, at keyLocation: SourceLocation, _ value: JSONNode, to members: inout Members
  ) {
    if !members.keys.isEmpty { members.keys.insert(key) }
    members.list.append(JSONNode.Member(key: key, keyLocation: keyLocation, value: value))
  }
}

/// Builds a ``ChartValue`` without locations.
enum ChartValueBuilder: JSONValueBuilder {
  static func null(at location: SourceLocation) -> ChartValue { .null }
  static func bool(_ value: Bool, at location: SourceLocation) -> ChartValue { .bool(value) }
  static func number(_ value: Double, at location: SourceLocation) -> ChartValue {
    .number(value)
  }
  static func string(_ value: String, at location: SourceLocation) -> ChartValue {
    .string(value)
  }
  static func array(_ elements: [ChartValue], at location: SourceLocation) -> ChartValue {
    .array(elements)
  }
  static func object(_ members: [String: ChartValue], at location: SourceLocation) -> ChartValue {
    .object(members)
  }
  static func emptyMembers() -> [String: ChartValue] { [:] }
  static func contains(_ key: String, in members: inout [String: ChartValue]) -> Bool {
    members[key] != nil
  }
  static func add(
    _ key: String, at keyLocation: SourceLocation, _ value: ChartValue,
    to members: inout [String: ChartValue]
  ) {
    members[key] = value
  }
}

/// The JSON syntax, read into the values `Builder` makes. Its state is the position alone:
/// nothing it keeps grows with the depth but the stack of the values being read.
struct JSONParser<Builder: JSONValueBuilder>: ~Copyable {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let path: String
  /// What the text is, in messages: "file" for a chart file, "value" for a value alone.
  private var subject = "file"
  private var offset = 0
  private var line = 1
  private var column = 1
  private var depth = 0

  private init(_ bytes: UnsafeBufferPointer<UInt8>, path: String) {
    self.bytes = bytes
    self.path = path
  }

  /// Parses `bytes` as one JSON value (see ``JSONReader/parse(_:path:subject:)``).
  static func parse(_ bytes: [UInt8], path: String, subject: String) throws(SyntaxError)
    -> Builder.Value
  {
    let result: Result<Builder.Value, SyntaxError> = bytes.withUnsafeBufferPointer { buffer in
      var reader = JSONParser(buffer, path: path)
      reader.subject = subject
      do throws(SyntaxError) {
        return .success(try reader.document())
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private var location: SourceLocation {
    SourceLocation(fileID: path, line: line, column: column)
  }

  private func fail(_ message: String, hidesWhatFollows: Bool = false) -> SyntaxError {
    SyntaxError(message: message, location: location, hidesWhatFollows: hidesWhatFollows)
  }

  private mutating func document() throws(SyntaxError) -> Builder.Value {
    // A byte order mark may start the file.
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { offset = 3 }
    skipWhitespace()
    guard offset < bytes.count else {
      throw fail(
        subject == "file" ? "The file is empty: write a JSON object." : "The value is empty.")
    }
    let value = try parseValue()
    skipWhitespace()
    guard offset == bytes.count else {
      throw fail("Unexpected \(describeNext()) after the JSON value: remove it.")
    }
    return value
  }

  /// Advances one byte, counting lines and columns.
  @inline(__always)
  private mutating func advance() {
    let byte = bytes[offset]
    offset += 1
    if byte == 0x0A {
      line += 1
      column = 1
    } else if byte & 0xC0 != 0x80 {
      column += 1
    }
  }

  private mutating func skipWhitespace() {
    while offset < bytes.count {
      switch bytes[offset] {
      case 0x20, 0x09, 0x0D:
        offset += 1
        column += 1
      case 0x0A:
        offset += 1
        line += 1
        column = 1
      default: return
      }
    }
  }

  private func describeNext() -> String {
    guard offset < bytes.count else { return "the end of the \(subject)" }
    let byte = bytes[offset]
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
    return "byte 0x\(String(byte, radix: 16, uppercase: true))"
  }

  private mutating func parseValue() throws(SyntaxError) -> Builder.Value {
    guard offset < bytes.count else {
      throw fail("The \(subject) ends where a value should be: it is truncated.")
    }
    let start = location
    switch bytes[offset] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return Builder.string(try parseString(), at: start)
    case UInt8(ascii: "t"):
      try literal("true")
      return Builder.bool(true, at: start)
    case UInt8(ascii: "f"):
      try literal("false")
      return Builder.bool(false, at: start)
    case UInt8(ascii: "n"):
      try literal("null")
      return Builder.null(at: start)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return Builder.number(try parseNumber(), at: start)
    default:
      throw fail("Expected a value, found \(describeNext()).", hidesWhatFollows: true)
    }
  }

  private mutating func literal(_ word: StaticString) throws(SyntaxError) {
    let start = location
    let count = word.utf8CodeUnitCount
    var matches = offset + count <= bytes.count
    if matches {
      for index in 0..<count where bytes[offset + index] != word.utf8Start[index] {
        matches = false
        break
      }
    }
    guard matches else {
      throw SyntaxError(
        message: "Expected '\(word)' or another value.", location: start, hidesWhatFollows: true)
    }
    offset += count
    column += count
  }

  private mutating func enter() throws(SyntaxError) {
    depth += 1
    guard depth <= JSONReader.maximumDepth else {
      throw fail(
        subject == "file"
          ? "Arrays and objects nest more than \(JSONReader.maximumDepth) levels deep here: flatten the chart, or split it into included files."
          : "Arrays and objects nest deeper than the limit of \(JSONReader.maximumDepth) levels here."
      )
    }
  }

  /// The error of an array or object that the file ends inside.
  private func unclosed(_ what: String, _ closing: Character, at start: SourceLocation)
    -> SyntaxError
  {
    SyntaxError(
      message:
        "The \(what) that starts here is not closed: the \(subject) is truncated, or a '\(closing)' is missing.",
      location: start)
  }

  private mutating func parseArray() throws(SyntaxError) -> Builder.Value {
    let start = location
    var elements: [Builder.Value] = []
    try container("array", closing: "]", at: start) { reader throws(SyntaxError) in
      elements.append(try reader.parseValue())
    }
    return Builder.array(elements, at: start)
  }

  private mutating func parseObject() throws(SyntaxError) -> Builder.Value {
    let start = location
    var members = Builder.emptyMembers()
    try container("object", closing: "}", at: start) { reader throws(SyntaxError) in
      guard reader.bytes[reader.offset] == UInt8(ascii: "\"") else {
        throw reader.fail(
          "Expected a key in double quotes, found \(reader.describeNext()).", hidesWhatFollows: true
        )
      }
      let keyLocation = reader.location
      let key = try reader.parseString()
      guard !Builder.contains(key, in: &members) else {
        throw SyntaxError(
          message: "The key \"\(JSONReader.clipped(key))\" appears twice in one object: keep one.",
          location: keyLocation)
      }
      reader.skipWhitespace()
      guard reader.offset < reader.bytes.count, reader.bytes[reader.offset] == UInt8(ascii: ":")
      else {
        throw reader.fail(
          "Expected ':' after the key \"\(JSONReader.clipped(key))\", found \(reader.describeNext()).",
          hidesWhatFollows: true)
      }
      reader.advance()
      reader.skipWhitespace()
      Builder.add(key, at: keyLocation, try reader.parseValue(), to: &members)
    }
    return Builder.object(members, at: start)
  }

  /// Reads an array's elements or an object's members, from its opening bracket to its
  /// closing one: `item` reads one at a time (after whitespace, before the end of the text),
  /// then a ',' or the closing bracket must follow.
  private mutating func container(
    _ what: String, closing: Character, at start: SourceLocation,
    item: (inout Self) throws(SyntaxError) -> Void
  ) throws(SyntaxError) {
    let close = UInt8(ascii: closing.unicodeScalars.first!)
    try enter()
    advance()
    skipWhitespace()
    if offset < bytes.count, bytes[offset] == close {
      advance()
      depth -= 1
      return
    }
    while true {
      skipWhitespace()
      guard offset < bytes.count else { throw unclosed(what, closing, at: start) }
      try item(&self)
      skipWhitespace()
      guard offset < bytes.count else { throw unclosed(what, closing, at: start) }
      if bytes[offset] == UInt8(ascii: ",") {
        advance()
        continue
      }
      guard bytes[offset] == close else {
        throw fail(
          "Expected ',' or '\(closing)' in an \(what), found \(describeNext()).",
          hidesWhatFollows: true)
      }
      advance()
      depth -= 1
      return
    }
  }

  private mutating func parseString() throws(SyntaxError) -> String {
    let start = location
    advance()  // the opening quote
    // The common case: no escape before the closing quote, read in place.
    var end = offset
    while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
      bytes[end] >= 0x20
    {
      end += 1
    }
    if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
      guard
        let string = String(
          validating: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self)
      else {
        throw SyntaxError(
          message: "The string that starts here is not valid UTF-8: save the file as UTF-8.",
          location: start)
      }
      for index in offset..<end where bytes[index] & 0xC0 != 0x80 { column += 1 }
      offset = end
      advance()  // the closing quote
      return string
    }
    var text: [UInt8] = []
    while true {
      guard offset < bytes.count else {
        throw unclosed("string", "\"", at: start)
      }
      let byte = bytes[offset]
      switch byte {
      case UInt8(ascii: "\""):
        advance()
        guard let string = String(validating: text, as: UTF8.self) else {
          throw SyntaxError(
            message: "The string that starts here is not valid UTF-8: save the file as UTF-8.",
            location: start)
        }
        return string
      case UInt8(ascii: "\\"):
        advance()
        try parseEscape(into: &text)
      case 0..<0x20:
        throw fail(
          "A string holds a control character (such as a line break): write it as an escape, such as \\n."
        )
      default:
        text.append(byte)
        advance()
      }
    }
  }

  private mutating func parseEscape(into text: inout [UInt8]) throws(SyntaxError) {
    guard offset < bytes.count else {
      throw fail("The \(subject) ends inside an escape: it is truncated.")
    }
    let escape = bytes[offset]
    let simple: UInt8? =
      switch escape {
      case UInt8(ascii: "\""): 0x22
      case UInt8(ascii: "\\"): 0x5C
      case UInt8(ascii: "/"): 0x2F
      case UInt8(ascii: "b"): 0x08
      case UInt8(ascii: "f"): 0x0C
      case UInt8(ascii: "n"): 0x0A
      case UInt8(ascii: "r"): 0x0D
      case UInt8(ascii: "t"): 0x09
      default: nil
      }
    if let simple {
      advance()
      text.append(simple)
      return
    }
    guard escape == UInt8(ascii: "u") else {
      throw fail("'\\\(describeNext())' is not an escape JSON knows: write \\\\ for a backslash.")
    }
    advance()
    var scalar = try hexQuad()
    if (0xD800..<0xDC00).contains(scalar) {
      // A high surrogate: a low one must follow, as \uDC00 to \uDFFF.
      guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
        bytes[offset + 1] == UInt8(ascii: "u")
      else { throw fail("A \\u escape of a high surrogate is not followed by a low one.") }
      advance()
      advance()
      let low = try hexQuad()
      guard (0xDC00..<0xE000).contains(low) else {
        throw fail("A \\u escape of a high surrogate is not followed by a low one.")
      }
      scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
    }
    guard let unicode = Unicode.Scalar(scalar) else {
      throw fail("A \\u escape names a lone surrogate, which is not a character.")
    }
    text.append(contentsOf: String(unicode).utf8)
  }

  private mutating func hexQuad() throws(SyntaxError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard offset < bytes.count, let digit = hexDigit(bytes[offset]) else {
        throw fail("A \\u escape needs four hexadecimal digits.")
      }
      value = value << 4 | digit
      advance()
    }
    return value
  }

  private func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  private mutating func parseNumber() throws(SyntaxError) -> Double {
    let start = offset
    let startLocation = location
    func isDigit(_ index: Int) -> Bool {
      index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39
    }
    var index = offset
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard isDigit(index) else {
      throw SyntaxError(message: "A number needs a digit after '-'.", location: startLocation)
    }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      while isDigit(index) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard isDigit(index) else {
        throw SyntaxError(message: "A number needs a digit after '.'.", location: startLocation)
      }
      while isDigit(index) { index += 1 }
    }
    if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard isDigit(index) else {
        throw SyntaxError(
          message: "A number needs a digit in its exponent.", location: startLocation)
      }
      while isDigit(index) { index += 1 }
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    column += index - offset
    offset = index
    guard let value = Double(text), value.isFinite else {
      throw SyntaxError(
        message: "The number \(JSONReader.clipped(text)) is too large for a Double.",
        location: startLocation)
    }
    return value
  }
}
