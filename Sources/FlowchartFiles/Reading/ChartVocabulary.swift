import Flowchart

/// The words both syntaxes of a chart file share: the kinds of statement (a JSON object's
/// key, an XML element's name) and the built-in tests, in the order messages list them.
enum ChartVocabulary {
  /// The kinds of statement.
  static let statements = [
    "action", "condition", "multipleCondition", "dispatch", "wait", "subflow", "map", "goTo",
    "include",
  ]
  /// The built-in tests.
  static let tests = ["equal", "less", "greater", "present", "matches", "all", "any", "not"]
}

extension ProblemList {
  /// Records a word the file uses where it takes only `allowed`: `message` says where it was
  /// found and what is allowed, without its final period; a suggestion of the closest allowed
  /// word, shown with `quote`, ends it when one is close.
  mutating func unknown(
    _ word: String, _ message: String, among allowed: some Collection<String>,
    quote: (String) -> String = { "\"\($0)\"" }, at location: SourceLocation
  ) {
    malformed(
      message + Suggestions.hint(for: word, among: allowed, quote: quote) + ".", at: location)
  }
}
