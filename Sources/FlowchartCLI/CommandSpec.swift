/// What a command takes, for parsing its arguments and for its `--help`.
struct CommandSpec: Sendable {
  /// The command's name, as typed after `flowchart`.
  var name: String
  /// One line: what the command does.
  var abstract: String
  /// Paragraphs after the abstract in `--help`, already wrapped; empty for none.
  var discussion = ""
  /// The positional arguments, in order.
  var arguments: [ArgumentSpec] = []
  /// The options, in the order `--help` lists them.
  var options: [OptionSpec] = []

  /// The command line as `Usage:` shows it: `flowchart diagram <file> [--format <format>]`.
  var usage: String {
    var parts = ["flowchart", name]
    parts += arguments.map(\.synopsis)
    parts += options.map { option in
      var synopsis = option.synopsis
      if option.isRepeatable { synopsis += " ..." }
      return option.isRequired ? synopsis : "[" + synopsis + "]"
    }
    return parts.joined(separator: " ")
  }

  /// The option spelled `name` (`--format`), if the command takes it.
  func option(named name: String) -> OptionSpec? {
    options.first { $0.name == name }
  }
}

/// A positional argument.
struct ArgumentSpec: Sendable {
  /// The name between angle brackets, `file`.
  var name: String
  /// One line for `--help`.
  var help: String
  /// Whether it takes one or more values (`<files> ...`).
  var isRepeated = false

  /// `<file>`, or `<files> ...`.
  var synopsis: String { isRepeated ? "<\(name)> ..." : "<\(name)>" }
  /// `<file>`, as `--help` and `Help:` lines label it.
  var label: String { "<\(name)>" }
}

/// An option: a flag (`--log`) or an option with a value (`--format <format>`).
struct OptionSpec: Sendable {
  /// The name with its dashes, `--format`.
  var name: String
  /// The value's name between angle brackets, `format`; `nil` for a flag.
  var valueName: String?
  /// One line for `--help`.
  var help: String
  /// The values it accepts, when they are a fixed list.
  var allowedValues: [String] = []
  /// The value when the option is not given, shown in `--help`; `nil` for none.
  var defaultValue: String?
  /// Whether the command needs it.
  var isRequired = false
  /// Whether it may be given more than once, each time adding a value.
  var isRepeatable = false

  /// `--format <format>`, or `--log`.
  var synopsis: String { valueName.map { "\(name) <\($0)>" } ?? name }

  /// The help line's text, with the allowed values and the default.
  var fullHelp: String {
    var text = help
    if let defaultValue { text += " (default: \(defaultValue))" }
    return text
  }

  /// `'mermaid' and 'dot'`, or `'a', 'b' and 'c'`.
  var allowedValueList: String {
    let quoted = allowedValues.map { "'\($0)'" }
    guard let last = quoted.last, quoted.count > 1 else { return quoted.first ?? "" }
    return quoted.dropLast().joined(separator: ", ") + " and " + last
  }
}
