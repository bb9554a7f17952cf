import Flowchart
import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// An XML element as read: its name, attributes, child elements, text and where it starts.
struct XMLElementNode {
  var name: String
  var attributes: [String: String]
  var children: [XMLElementNode] = []
  /// The element's non-whitespace text, if any, and where it was found.
  var text: (String, SourceLocation)?
  var location: SourceLocation

  /// The value of the attribute `name`, if the element has it: found by comparing the few
  /// names an element has rather than hashing `name` (issue 26: this runs several times for
  /// every element of a file).
  func attribute(_ name: String) -> String? {
    for (key, value) in attributes where key == name { return value }
    return nil
  }
}

/// Reads XML into a tree of elements with `XMLParser`, refusing document type declarations
/// (and so entity expansion), and nesting deeper than ``maximumDepth``.
enum XMLTreeReader {
  /// The deepest nesting of elements a file may have.
  static var maximumDepth: Int { 512 }

  static func parse(_ bytes: [UInt8], path: String) throws(SyntaxError) -> XMLElementNode {
    let lines = LineTable(bytes)
    // What the checks below look for is rare in a chart file: one pass over the bytes (the
    // line table's) tells when none can find anything, and each runs only where it might
    // (issue 26: the checks took a tenth of reading a file).
    let seen = lines.seen
    if let (offset, encoding) = foreignEncoding(of: bytes) {
      let said = encoding.map { "says encoding=\"\(JSONReader.clipped($0))\"" }
      throw SyntaxError(
        message: said.map {
          "The XML declaration \($0), but chart files are read as UTF-8 only: save the file as UTF-8, and write encoding=\"UTF-8\" or leave it out."
        }
          ?? "The file is UTF-16 (or UTF-32): chart files are read as UTF-8 only. Save it as UTF-8.",
        location: lines.location(ofOffset: offset, path: path))
    }
    if seen.exclamationMark, let offset = find(Array("<!DOCTYPE".utf8), in: bytes) {
      throw SyntaxError(
        message: "A chart file may not have a document type declaration (<!DOCTYPE …>): remove it.",
        location: lines.location(ofOffset: offset, path: path))
    }
    // `XMLParser` on Linux crashes on a processing instruction without data (`<?xm?>`), so
    // a chart file holds none but its XML declaration.
    if let offset = firstProcessingInstruction(in: bytes, among: seen.processingMarks) {
      throw SyntaxError(
        message:
          "A chart file may not hold a processing instruction (<?…?>) other than its XML declaration at the start: remove it.",
        location: lines.location(ofOffset: offset, path: path))
    }
    // `XMLParser` on Linux crashes on some invalid UTF-8 (in an element's name, for one), so
    // the bytes are checked first.
    if !seen.onlyASCII, let offset = firstInvalidUTF8(in: bytes) {
      throw SyntaxError(
        message: "The file is not valid UTF-8 here: save it as UTF-8.",
        location: lines.location(ofOffset: offset, path: path))
    }
    let delegate = TreeBuilder(path: path, bytes: bytes, lines: lines)
    let parser = XMLParser(data: Data(bytes))
    parser.shouldProcessNamespaces = false
    parser.shouldReportNamespacePrefixes = false
    parser.shouldResolveExternalEntities = false
    parser.delegate = delegate
    // The parser recovers from some errors and reports success; the first error it reports
    // to the delegate is the one that counts.
    let succeeded = parser.parse()
    if let error = delegate.error { throw error }
    guard succeeded, let root = delegate.root else {
      let line = max(1, parser.lineNumber)
      let column = max(1, parser.columnNumber)
      throw SyntaxError(
        message: bytes.isEmpty
          ? "The file is empty: write a <flowchart> element."
          : "The XML is not well-formed: \(describe(parser.parserError)).",
        location: SourceLocation(fileID: path, line: line, column: column),
        hidesWhatFollows: !bytes.isEmpty)
    }
    return root
  }

  /// The parser's error in words. The codes are libxml2's, which `XMLParser` passes on.
  static func describe(_ error: (any Error)?) -> String {
    guard let error else { return "the document ends early" }
    let code = (error as NSError).code
    switch code {
    case 4: return "the document is empty"
    case 5:
      return
        "the document ends before its elements are closed (it is truncated), or goes on after its root element"
    case 9: return "it holds a character XML does not allow, or bytes that are not UTF-8"
    case 23, 24, 25, 26, 27: return "it names an entity XML does not define (write & as &amp;)"
    case 38: return "an attribute value holds a '<' (write &lt;)"
    case 39, 40, 41: return "an attribute is not written name=\"value\""
    case 42: return "an attribute appears twice in one element"
    case 65: return "a space is missing between attributes"
    case 68: return "a name is expected after '<'"
    case 73: return "a '>' is missing"
    case 76: return "an end tag does not match its start tag"
    case 77: return "a tag is not finished"
    default:
      return
        "XMLParser error \(code); look for an unclosed tag, a missing quote, or a '<' or '&' that should be escaped"
    }
  }

  /// The offset of the first byte that does not belong to a valid UTF-8 sequence, if any.
  static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var offset = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let scalar): offset += scalar.count
      case .emptyInput: return nil
      case .error: return offset
      }
    }
  }

  /// Where the file says, or shows, an encoding other than UTF-8: the offset of the XML
  /// declaration's `encoding` and its value, or offset 0 and `nil` for a file that starts
  /// with a UTF-16 or UTF-32 byte order mark or a NUL byte; `nil` for a UTF-8 file.
  static func foreignEncoding(of bytes: [UInt8]) -> (offset: Int, encoding: String?)? {
    if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE])
      || bytes.prefix(4).contains(0)
    {
      return (0, nil)
    }
    let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    guard bytes[start...].starts(with: Array("<?xml".utf8)) else { return nil }
    // The declaration: up to its `?>`.
    var end = start
    while end + 1 < bytes.count,
      !(bytes[end] == UInt8(ascii: "?") && bytes[end + 1] == UInt8(ascii: ">"))
    {
      end += 1
    }
    let declaration = Array(bytes[start..<end])
    guard let found = find(Array("encoding".utf8), in: declaration) else { return nil }
    var index = found + 8
    func skipSpace() {
      while index < declaration.count,
        [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")]
          .contains(declaration[index])
      {
        index += 1
      }
    }
    skipSpace()
    guard index < declaration.count, declaration[index] == UInt8(ascii: "=") else { return nil }
    index += 1
    skipSpace()
    guard index < declaration.count,
      declaration[index] == UInt8(ascii: "\"") || declaration[index] == UInt8(ascii: "'")
    else { return nil }
    let quote = declaration[index]
    let valueStart = index + 1
    guard let valueEnd = declaration[valueStart...].firstIndex(of: quote) else { return nil }
    let value = String(decoding: declaration[valueStart..<valueEnd], as: UTF8.self)
    guard value.lowercased() != "utf-8" else { return nil }
    return (start + found, value)
  }

  /// The offset of the first `<?` that does not start the XML declaration (`<?xml` and a
  /// space, at the start of the file or after its byte order mark), if any, among `marks`:
  /// the offsets of every `<?`, in order.
  static func firstProcessingInstruction(in bytes: [UInt8], among marks: [Int]) -> Int? {
    let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    for index in marks {
      let isDeclaration =
        index == start && bytes[index...].starts(with: Array("<?xml".utf8))
        && index + 5 < bytes.count
        && [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")]
          .contains(bytes[index + 5])
      if !isDeclaration { return index }
    }
    return nil
  }

  static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
    guard needle.count <= bytes.count else { return nil }
    var index = 0
    while index + needle.count <= bytes.count {
      if bytes[index] == needle[0] && bytes[index..<index + needle.count].elementsEqual(needle) {
        return index
      }
      index += 1
    }
    return nil
  }
}

/// Where each line of a file starts, to turn a byte offset into a line and a column.
struct LineTable {
  let starts: [Int]
  let bytes: [UInt8]
  /// What the pass that found the lines saw of the bytes.
  let seen: Seen

  /// What a pass over a file's bytes saw, for the checks that look for rare bytes.
  struct Seen {
    /// Whether every byte is ASCII, and so the bytes are valid UTF-8.
    var onlyASCII: Bool
    /// Whether a `!` appears (as in `<!DOCTYPE`).
    var exclamationMark: Bool
    /// Where each `<?` starts, which a processing instruction or the XML declaration does.
    var processingMarks: [Int]
  }

  init(_ bytes: [UInt8]) {
    var starts = [0]
    var processingMarks: [Int] = []
    var bits: UInt8 = 0
    var marks: UInt8 = 0
    bytes.withUnsafeBufferPointer { buffer in
      // One loop without branches, which the optimizer vectorizes: every byte ORed together,
      // and whether a `!` or a `?` appears.
      for byte in buffer {
        bits |= byte
        marks |= (byte == UInt8(ascii: "!") ? 1 : 0) | (byte == UInt8(ascii: "?") ? 2 : 0)
      }
      guard let base = buffer.baseAddress else { return }
      func offsets(of byte: UInt8, _ found: (Int) -> Void) {
        var offset = 0
        while offset < buffer.count,
          let match = memchr(base + offset, Int32(byte), buffer.count - offset)
        {
          let position = base.distance(to: match.assumingMemoryBound(to: UInt8.self))
          found(position)
          offset = position + 1
        }
      }
      offsets(of: 0x0A) { starts.append($0 + 1) }
      if marks & 2 != 0 {
        offsets(of: UInt8(ascii: "?")) { position in
          if position > 0 && buffer[position - 1] == UInt8(ascii: "<") {
            processingMarks.append(position - 1)
          }
        }
      }
    }
    self.starts = starts
    self.bytes = bytes
    seen = Seen(
      onlyASCII: bits < 0x80, exclamationMark: marks & 1 != 0, processingMarks: processingMarks)
  }

  /// The line (from 1) and column (from 1, counting Unicode scalars) of the byte at `offset`.
  ///
  /// `line`, when given, is a line the offset is likely on (from 1): checked, and used
  /// without searching the table when right.
  func location(ofOffset offset: Int, path: String, near line: Int? = nil) -> SourceLocation {
    var low = 0
    if let line, line >= 1, line <= starts.count, starts[line - 1] <= offset,
      line == starts.count || offset < starts[line]
    {
      low = line - 1
    } else {
      var high = starts.count - 1
      while low < high {
        let middle = (low + high + 1) / 2
        if starts[middle] <= offset { low = middle } else { high = middle - 1 }
      }
    }
    var column = 1
    var index = starts[low]
    while index < offset && index < bytes.count {
      if bytes[index] & 0xC0 != 0x80 { column += 1 }
      index += 1
    }
    return SourceLocation(fileID: path, line: low + 1, column: column)
  }

  /// The byte offset of `line` (from 1) and the parser's `column` (from 1, in bytes).
  func offset(line: Int, column: Int) -> Int {
    guard line >= 1, line <= starts.count else { return bytes.count }
    return min(bytes.count, starts[line - 1] + max(0, column - 1))
  }
}

/// The parser's delegate: builds the tree, and stops the parse on nesting too deep.
private final class TreeBuilder: NSObject, XMLParserDelegate {
  let path: String
  let bytes: [UInt8]
  let lines: LineTable
  var stack: [XMLElementNode] = []
  var root: XMLElementNode?
  var error: SyntaxError?

  init(path: String, bytes: [UInt8], lines: LineTable) {
    self.path = path
    self.bytes = bytes
    self.lines = lines
  }

  /// Where the element whose start tag the parser has just read starts: the parser reports
  /// the end of the tag, and the tag's `<` is the last one before it (attribute values
  /// cannot hold a `<`).
  func startOfTag(_ parser: XMLParser) -> SourceLocation {
    let line = parser.lineNumber
    var offset = min(lines.offset(line: line, column: parser.columnNumber), bytes.count - 1)
    while offset > 0 && bytes[offset] != UInt8(ascii: "<") { offset -= 1 }
    // Most tags are on one line: the parser's.
    return lines.location(ofOffset: max(0, offset), path: path, near: line)
  }

  func parser(
    _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
    qualifiedName: String?, attributes: [String: String] = [:]
  ) {
    let location = startOfTag(parser)
    guard stack.count < XMLTreeReader.maximumDepth else {
      error = SyntaxError(
        message:
          "Elements nest more than \(XMLTreeReader.maximumDepth) levels deep here: flatten the chart, or split it into included files.",
        location: location)
      parser.abortParsing()
      return
    }
    stack.append(XMLElementNode(name: elementName, attributes: attributes, location: location))
  }

  func parser(
    _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
    qualifiedName: String?
  ) {
    guard let element = stack.popLast() else { return }
    if stack.isEmpty {
      root = element
    } else {
      stack[stack.count - 1].children.append(element)
    }
  }

  func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
    guard error == nil else { return }
    error = SyntaxError(
      message: "The XML is not well-formed: \(XMLTreeReader.describe(parseError)).",
      location: SourceLocation(
        fileID: path, line: max(1, parser.lineNumber), column: max(1, parser.columnNumber)),
      hidesWhatFollows: true)
    parser.abortParsing()
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    // Most text between a chart file's elements is indentation, told from its UTF-8 bytes
    // before breaking it into characters, which took a fifth of reading an XML file
    // (issue 26, BENCHMARKS.md). Every byte it skips is a whitespace character.
    guard !stack.isEmpty, !string.utf8.allSatisfy(Self.isASCIIWhitespace),
      string.contains(where: { !$0.isWhitespace })
    else { return }
    if stack[stack.count - 1].text == nil {
      let location = SourceLocation(
        fileID: path, line: max(1, parser.lineNumber), column: max(1, parser.columnNumber))
      stack[stack.count - 1].text = (string, location)
    }
  }

  /// Whether `byte` is a space, a tab, a line feed, a vertical tab, a form feed or a
  /// carriage return.
  private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || (0x09...0x0D).contains(byte)
  }

  func parser(_ parser: XMLParser, foundCDATA cdataBlock: Data) {
    self.parser(parser, foundCharacters: String(decoding: cdataBlock, as: UTF8.self))
  }
}
