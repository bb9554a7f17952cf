import Flowchart

/// The words both syntaxes of a chart file share: the kinds of statement (a JSON object's
/// key, an XML element's name) and the built-in tests, in the order messages list them.
enum ChartVocabulary {
  /// The kinds of statement.
  static let statements = [
    "action", "condition", "multipleCondition", "dispatch", "wait", "subflow", "map", "delay",
    "goTo",
    "include",
  ]
  /// The built-in tests.
  static let tests = ["equal", "less", "greater", "present", "matches", "all", "any", "not"]

  /// The comparison test `name` (`equal`, `less` or `greater`) of the value at `path` with
  /// `value`; both readers call it only with these three names.
  static func comparison(
    _ name: String, path: String, value: ChartValue
  ) -> ChartTest.Kind {
    switch name {
    case "equal": .equal(path: path, value: value)
    case "less": .less(path: path, value: value)
    default: .greater(path: path, value: value)
    }
  }
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

/// Two ways a state's element says one thing, of which a file gives one: a condition's
/// registered condition or built-in test, a wait's input handler or path, … The words of
/// both syntaxes and what each means sit together, so that the "both" and "neither"
/// problems are worded once for both readers.
struct ChartAlternatives {
  /// One way, as each syntax writes it, and what it means.
  struct Way {
    let json: String
    let xml: String
    let meaning: String

    func shown(in syntax: ChartSyntax) -> String {
      switch syntax {
      case .json: "\(json) (\(meaning))"
      case .xml: "\(xml) (\(meaning))"
      }
    }
  }

  /// The kind of state, as a sentence starts with it.
  let kind: String
  let first: Way
  let second: Way

  static let conditionDecision = ChartAlternatives(
    kind: "Condition",
    first: Way(json: "\"run\"", xml: "run=\"…\"", meaning: "a registered condition"),
    second: Way(json: "\"test\"", xml: "a test element", meaning: "a built-in test"))
  static let keyDecision = ChartAlternatives(
    kind: "Multiple condition",
    first: Way(json: "\"run\"", xml: "run=\"…\"", meaning: "a registered multiple condition"),
    second: Way(json: "\"value\"", xml: "value=\"…\"", meaning: "a path whose value is the key"))
  static let waitInput = ChartAlternatives(
    kind: "Wait",
    first: Way(json: "\"run\"", xml: "run=\"…\"", meaning: "a registered input"),
    second: Way(
      json: "\"storeAt\"", xml: "storeAt=\"…\"", meaning: "the path its input is stored at"))
  static let subflowContext = ChartAlternatives(
    kind: "Subflow",
    first: Way(json: "\"context\"", xml: "context=\"…\"", meaning: "a path of the data"),
    second: Way(json: "\"mapping\"", xml: "mapping=\"…\"", meaning: "a registered mapping"))
  static let mapChart = ChartAlternatives(
    kind: "Map",
    first: Way(json: "\"chart\"", xml: "chart=\"…\"", meaning: "a chart file"),
    second: Way(json: "\"states\"", xml: "states", meaning: "the states run per element"))
}

extension ProblemList {
  /// Records that the state `name` gives both `ways` (or neither, when `both` is false).
  mutating func alternatives(
    _ ways: ChartAlternatives, _ name: String, both: Bool, in syntax: ChartSyntax,
    at location: SourceLocation
  ) {
    let (first, second) = (ways.first.shown(in: syntax), ways.second.shown(in: syntax))
    malformed(
      both
        ? "\(ways.kind) '\(name)' has both \(first) and \(second): keep one."
        : "\(ways.kind) '\(name)' has neither \(first) nor \(second): add one.",
      at: location, name: name)
  }
}
