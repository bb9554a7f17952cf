/// How names and multiple-condition keys become text: one rule, used by the printed tree,
/// definition errors, run errors, ``Exit/Label`` and ``Decision``.
///
/// **Keys.** A key is shown as the person wrote its `Case`:
///
/// - an `Optional` key shows its wrapped value (`Optional("A")` shows `A`), and `nil` when
///   it holds none, at any depth of nesting;
/// - any other key shows `String(describing:)` of its value (`free` for `Plan.free`, `3`,
///   `nan`);
/// - that text is written as it is when it reads one way, and as a Swift string literal
///   (between `"`, with `\"`, `\\` and the escapes below) when it is empty, starts or ends
///   with whitespace, holds a character that needs an escape, a `"`, or `": "`, ends with
///   `:`, or is `default` or `nil` without being the default exit or a missing value.
///
/// So, with each key written as in Swift source: `retry` → `retry`, `""` → `""`, `"x: y"` → `"x: y"`, `" a"` → `" a"`, `"a\nb"` →
/// `"a\nb"`, `Optional("A")` → `A`, `Optional<String>.none` → `nil`, `"nil"` → `"nil"`.
///
/// **Names.** A name is written as it is, unless it is empty, starts or ends with
/// whitespace, starts with `"`, or holds a character that needs an escape: then it is
/// written as a Swift string literal, like a key.
///
/// **Escapes.** A character needs an escape when it would break a line, move the text or
/// not show: control characters (`\0`, `\t`, `\n`, `\r`, and `\u{1B}` for the others, in
/// hexadecimal), line and paragraph separators (`\u{2028}`, `\u{2029}`), format characters
/// such as bidirectional overrides and zero-width spaces (`\u{202E}`, `\u{200B}`), and
/// spaces other than U+0020 (`\u{A0}`). The joiners U+200C and U+200D and the emoji tag
/// characters U+E0020–U+E007F are kept, since emoji and some scripts' letters are made
/// of them.
///
/// So the text of a key or a name is always one line, and two texts that differ in a
/// character that does not show differ where you can see it. Two keys of one multiple
/// condition whose texts are equal are a definition error.
///
/// **In messages**, a name or key is written between single quotes (`'Fetch'`, `'retry'`,
/// `'nil'`), or, when its text is a string literal, as that literal alone (`"x: y"`).
enum DisplayText {
  /// The text of a multiple condition's key: see ``DisplayText``.
  static func key<Key>(_ key: Key) -> String {
    if let string = key as? String {
      return isPlainKey(string) ? string : literal(string)
    }
    guard let value = unwrapped(key) else { return "nil" }
    let text = String(describing: value)
    return isPlainKey(text) ? text : literal(text)
  }

  /// A stored value as the run log shows it: `String(reflecting:)` of the value, with every
  /// level of `Optional` removed as a key's is (`Optional(true)` shows `true`,
  /// `Optional("Ada")` shows `"Ada"`), and `nil` when one of them holds none.
  static func value<Value>(_ value: Value) -> String {
    guard let unwrapped = unwrapped(value) else { return "nil" }
    return String(reflecting: unwrapped)
  }
  /// The text of a state's name: the name itself, or a string literal when it is empty,
  /// starts or ends with whitespace, starts with `"` or needs an escape.
  static func name(_ name: String) -> String {
    isPlainName(name) ? name : literal(name)
  }

  /// A key as a message shows it: `'retry'`, `'nil'`, or a string literal (`"x: y"`).
  static func quoted<Key>(key: Key) -> String {
    quoted(text: Self.key(key))
  }

  /// A name as a message shows it: `'Fetch'`, or a string literal (`"a\nb"`).
  static func quoted(name: String) -> String {
    quoted(text: Self.name(name))
  }

  /// Text that ``key(_:)`` or ``name(_:)`` made, or an exit label such as `default`, as a
  /// message shows it: between single quotes, or alone when it is a string literal.
  ///
  /// Use it for a key's text kept as a `String` (``KeyedDecision/Exit/label``, an
  /// ``Exit/Label``), which ``quoted(key:)`` would take for a `String` key and quote again.
  static func quoted(text: String) -> String {
    text.utf8.first == UInt8(ascii: "\"") ? text : "'" + text + "'"
  }

  /// `text` as a Swift string literal: between `"`, with `"` and `\` escaped, and every
  /// character that needs an escape written as one.
  static func literal(_ text: String) -> String {
    "\""
      + replacing(in: text) { scalar in
        switch scalar {
        case "\"": "\\\""
        case "\\": "\\\\"
        case _ where needsEscape(scalar): escape(of: scalar)
        default: nil
        }
      } + "\""
  }

  /// `text` with each scalar that `replacement` gives a replacement for replaced by it, the
  /// others kept: the one loop of every escaping the package writes (a Swift literal here,
  /// DOT's and Mermaid's labels in `Printing/`).
  static func replacing(
    in text: String, _ replacement: (Unicode.Scalar) -> String?
  ) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      if let replaced = replacement(scalar) {
        result += replaced
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Whether `scalar` is written as an escape: see ``DisplayText``.
  static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.isASCII {
      return scalar.value < 0x20 || scalar.value == 0x7F
    }
    switch scalar.properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator, .spaceSeparator:
      return true
    case .format:
      return !(0x200C...0x200D ~= scalar.value || 0xE0020...0xE007F ~= scalar.value)
    default:
      return false
    }
  }

  // MARK: - Private

  /// `value` with every level of `Optional` removed; `nil` when one of them holds none.
  private static func unwrapped<Value>(_ value: Value) -> Any? {
    var value: Any = value
    while let optional = value as? any OptionalDisplay {
      guard let wrapped = optional.wrappedValueForDisplay else { return nil }
      value = wrapped
    }
    return value
  }

  /// Whether a key's text reads one way as it is.
  private static func isPlainKey(_ text: String) -> Bool {
    guard isPlainName(text), text != "default", text != "nil", text.last != ":" else {
      return false
    }
    var afterColon = false
    for scalar in text.unicodeScalars {
      if scalar == "\"" || (afterColon && scalar == " ") { return false }
      afterColon = scalar == ":"
    }
    return true
  }

  /// Whether a name reads one way as it is.
  private static func isPlainName(_ text: String) -> Bool {
    if let plain = isPlainASCIIName(text) { return plain }
    guard let first = text.first, let last = text.last,
      !first.isWhitespace, !last.isWhitespace, first != "\""
    else { return false }
    return !text.unicodeScalars.contains(where: needsEscape)
  }

  /// Whether `text` reads one way as a name, worked out from its UTF-8 bytes without
  /// decoding it: the printer asks this of every line. `nil` when the answer needs the
  /// slower look at characters (a byte beyond ASCII, or no contiguous storage).
  private static func isPlainASCIIName(_ text: String) -> Bool? {
    let answer = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
      guard let first = bytes.first, let last = bytes.last else { return false }
      for byte in bytes where byte < 0x20 || byte >= 0x7F {
        return byte >= 0x80 ? nil : false
      }
      return first != UInt8(ascii: " ") && last != UInt8(ascii: " ")
        && first != UInt8(ascii: "\"")
    }
    return answer ?? nil
  }

  /// Swift's escape for `scalar`: `\0`, `\t`, `\n`, `\r`, or `\u{…}`.
  private static func escape(of scalar: Unicode.Scalar) -> String {
    switch scalar {
    case "\0": "\\0"
    case "\t": "\\t"
    case "\n": "\\n"
    case "\r": "\\r"
    default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
    }
  }
}

/// `Optional`, seen through a value of unknown type, so that a key's wrapped value can be
/// shown without knowing the type it wraps.
private protocol OptionalDisplay {
  /// The wrapped value, or `nil` for none.
  var wrappedValueForDisplay: Any? { get }
}

extension Optional: OptionalDisplay {
  fileprivate var wrappedValueForDisplay: Any? {
    switch self {
    case .some(let wrapped): wrapped
    case .none: nil
    }
  }
}

/// `1 state`, `2 states`, `-1 state`: a count that agrees with its number, for messages.
///
/// Any `Int` will do, `Int.min` included (whose magnitude no `Int` holds).
func counted(_ count: Int, _ noun: String) -> String {
  count.magnitude == 1 ? "\(count) \(noun)" : "\(count) \(noun)s"
}

extension DisplayText {
  /// A type's name after its article, for messages: `an Int`, `an Optional<String>`,
  /// `a String`, `a UInt8`, `a URL`, `a Unit`.
  ///
  /// The article goes by how the name is spoken: `an` before a vowel, except a `U` said
  /// "you" (`Uni…`, `Us…`, `Ut…`, or a `U` before a capital or a digit, as in `UInt` and
  /// `UUID`).
  static func withArticle(typeName name: String) -> String {
    let letters = name.drop { !$0.isLetter }
    guard let first = letters.first else { return "a " + name }
    let vowel: Bool
    switch first {
    case "A", "E", "I", "O", "a", "e", "i", "o":
      vowel = true
    case "U", "u":
      let rest = letters.dropFirst()
      let next = rest.first
      vowel =
        !(next.map { $0.isUppercase || $0.isNumber } ?? true) && !rest.hasPrefix("ni")
        && !rest.hasPrefix("s") && !rest.hasPrefix("t")
    default:
      vowel = false
    }
    return (vowel ? "an " : "a ") + name
  }
}
