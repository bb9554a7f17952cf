/// A regular expression of a `matches` test, compiled once when the chart is bound.
///
/// `@unchecked Sendable`: `Regex` is not declared `Sendable` on every platform, but the box
/// holds it in a `let`, never mutates it, and matching reads it without writing (a `Regex`
/// is a value whose program is immutable once built).
final class PatternBox: @unchecked Sendable {
  let regex: Regex<AnyRegexOutput>

  init(_ pattern: String) throws {
    regex = try Regex(pattern)
  }

  func matches(_ text: String) -> Bool {
    (try? regex.firstMatch(in: text)) != nil
  }
}
