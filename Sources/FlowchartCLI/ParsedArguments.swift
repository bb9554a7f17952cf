/// A command's arguments as the command line gave them: its positional values and its
/// options' values, checked against its ``CommandSpec``.
struct ParsedArguments: Equatable, Sendable {
  /// The positional values, in order.
  var positionals: [String] = []
  /// Each option's values, in the order given, by name (`--decide`); a flag's value is
  /// empty.
  var options: [String: [String]] = [:]

  /// The last value of the option `name`, or `nil` when it was not given.
  func value(of name: String) -> String? {
    options[name]?.last
  }

  /// Every value of the option `name`, in order.
  func values(of name: String) -> [String] {
    options[name] ?? []
  }

  /// Whether the flag `name` was given.
  func isSet(_ name: String) -> Bool {
    options[name] != nil
  }
}

/// A command line the tool cannot act on. Printed in swift-argument-parser's form:
///
/// ```text
/// Error: Missing expected argument '<file>'
/// Help:  <file>  The chart file, JSON (.json) or XML (.xml).
/// Usage: flowchart print <file>
///   See 'flowchart print --help' for more information.
/// ```
struct UsageError: Error, Equatable, Sendable {
  /// The sentence after `Error: `.
  var message: String
  /// The help line of the argument or option at fault (`<file>  The chart file.`), if any.
  var help: String?
  /// The command whose usage to show; `nil` for the tool's.
  var command: String?
}

extension CommandSpec {
  /// Reads `arguments`, the words after the command's name.
  ///
  /// Options may come before, between or after the positional values, as `--name value` or
  /// `--name=value`; `--` ends the options, so that a file named `-x` can be given.
  ///
  /// - Returns: The arguments, or `nil` when they ask for help (`-h`, `--help`).
  /// - Throws: A ``UsageError`` for an unknown option, a missing or invalid value, a
  ///   missing or unexpected argument.
  func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments? {
    var parsed = ParsedArguments()
    var index = arguments.startIndex
    var onlyPositionals = false
    while index < arguments.endIndex {
      let word = arguments[index]
      index += 1
      if onlyPositionals || word == "-" || !word.hasPrefix("-") {
        parsed.positionals.append(word)
        continue
      }
      if word == "--" {
        onlyPositionals = true
        continue
      }
      if word == "-h" || word == "--help" { return nil }
      var name = word
      var inlineValue: String?
      if let equals = word.firstIndex(of: "="), word.hasPrefix("--") {
        name = String(word[..<equals])
        inlineValue = String(word[word.index(after: equals)...])
      }
      guard let option = option(named: name) else {
        throw UsageError(message: "Unknown option '\(name)'", command: self.name)
      }
      guard option.valueName != nil else {
        if inlineValue != nil {
          throw UsageError(
            message: "The flag '\(name)' does not take a value", help: helpLine(option),
            command: self.name)
        }
        parsed.options[name, default: []].append("")
        continue
      }
      let value: String
      if let inlineValue {
        value = inlineValue
      } else if index < arguments.endIndex, !isOptionName(arguments[index]) {
        value = arguments[index]
        index += 1
      } else {
        throw UsageError(
          message: "Missing value for '\(option.synopsis)'", help: helpLine(option),
          command: self.name)
      }
      if !option.allowedValues.isEmpty, !option.allowedValues.contains(value) {
        throw UsageError(
          message:
            "The value '\(value)' is invalid for '\(option.synopsis)'. Please provide one of \(option.allowedValueList).",
          help: helpLine(option), command: self.name)
      }
      if !option.isRepeatable, parsed.options[name] != nil {
        throw UsageError(
          message: "The option '\(name)' is given more than once; give it once",
          help: helpLine(option), command: self.name)
      }
      parsed.options[name, default: []].append(value)
    }
    try checkPositionals(parsed.positionals)
    for option in options where option.isRequired && parsed.options[option.name] == nil {
      throw UsageError(
        message: "Missing expected argument '\(option.synopsis)'", help: helpLine(option),
        command: name)
    }
    return parsed
  }

  /// Checks that `positionals` fill the command's arguments, no more and no fewer.
  private func checkPositionals(_ positionals: [String]) throws(UsageError) {
    var remaining = positionals[...]
    for argument in arguments {
      guard !remaining.isEmpty else {
        throw UsageError(
          message: "Missing expected argument '\(argument.synopsis)'",
          help: helpLine(argument), command: name)
      }
      if argument.isRepeated {
        remaining = []
      } else {
        remaining = remaining.dropFirst()
      }
    }
    if let extra = remaining.first {
      throw UsageError(message: "Unexpected argument '\(extra)'", command: name)
    }
  }

  /// Whether `word` is one of the command's options (or help), rather than a value.
  private func isOptionName(_ word: String) -> Bool {
    let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
    return word == "-h" || word == "--help" || option(named: name) != nil
  }

  /// `<file>  The chart file.`, for a `Help:` line.
  func helpLine(_ argument: ArgumentSpec) -> String {
    "\(argument.label)  \(argument.help)"
  }

  /// `--format <format>  The diagram syntax.`, for a `Help:` line.
  func helpLine(_ option: OptionSpec) -> String {
    "\(option.synopsis)  \(option.fullHelp)"
  }
}
