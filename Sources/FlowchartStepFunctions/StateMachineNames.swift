/// Valid, unique, stable names for the states of an exported definition.
///
/// An ASL state name is 1 to 80 characters, unique in the whole state machine (nested
/// `Parallel` branches included), without whitespace, control characters, brackets or
/// ``forbidden`` characters. A chart's name keeps its letters; each run of whitespace or
/// forbidden characters becomes one `_` (dropped at the ends); the result is cut to 72
/// characters; a name already taken gets `_2`, `_3`, … in state order. States the export adds
/// (a condition's `Choice`, a dispatch's merge, a catch route's handler) are named after their
/// state with a suffix: `.decide`, `.merge`, `.catch1`.
struct StateMachineNames {
  /// The characters ASL excludes from names, besides whitespace and control characters.
  static let forbidden: Set<Character> = [
    "?", "*", "\"", "#", "%", "\\", "^", "|", "~", "`", "$", "&", ",", ";", ":", "/", "<", ">",
    "{", "}", "[", "]",
  ]

  private var taken: Set<String> = []

  /// The base of an ASL name for `name`: letters kept, the rest `_`, at most 72 characters.
  static func base(of name: String) -> String {
    var result = ""
    var pendingSeparator = false
    for character in name {
      let isBad =
        character.isWhitespace || forbidden.contains(character)
        || character.unicodeScalars.contains { $0.properties.generalCategory == .control }
      if isBad {
        pendingSeparator = !result.isEmpty
        continue
      }
      if pendingSeparator { result.append("_") }
      pendingSeparator = false
      result.append(character)
    }
    if result.isEmpty { result = "State" }
    return String(result.prefix(72))
  }

  /// A name for `name` + `suffix` no other state has, and takes it.
  mutating func take(_ name: String, suffix: String = "") -> String {
    let base = Self.base(of: name) + suffix
    var candidate = base
    var number = 2
    while taken.contains(candidate) {
      candidate = "\(base)_\(number)"
      number += 1
    }
    taken.insert(candidate)
    return candidate
  }
}
