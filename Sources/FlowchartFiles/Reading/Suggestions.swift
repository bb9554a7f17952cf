import Flowchart

/// "Did you mean" for chart files and the tool: the one place that words a suggestion for an
/// unknown key, attribute, element, test, state name or decision, over the core's
/// `Suggester` (edit distance ignoring case, within a budget of work), so that every front
/// end suggests by the same rule as the compiler's unknown names.
package enum Suggestions {
  /// The word of `candidates` closest to `word`, if one is close enough to be a likely typo.
  package static func closest(to word: String, among candidates: some Collection<String>)
    -> String?
  {
    guard !word.isEmpty else { return nil }
    var suggester = Suggester()
    return suggester.closestName(to: word, in: candidates)?.name
  }

  /// ` (did you mean "x"?)` when a candidate is close to `word`, else the empty string;
  /// `quote` shows the candidate as the message shows its words (`"x"` in JSON, `x` or `<x>`
  /// in XML, `'x'` for a name).
  package static func hint(
    for word: String, among candidates: some Collection<String>,
    quote: (String) -> String = { "\"\($0)\"" }
  ) -> String {
    closest(to: word, among: candidates).map { " (did you mean \(quote($0))?)" } ?? ""
  }
}
