/// Help text in swift-argument-parser's layout: `OVERVIEW:`, `USAGE:`, then the arguments,
/// options and subcommands in two columns.
enum Help {
  /// Where the second column starts.
  static let column = 26
  /// The width text wraps at.
  static let width = 80

  /// The `--help` of `command`.
  static func text(of command: CommandSpec) -> String {
    var text = "OVERVIEW: \(command.abstract)\n\n"
    if !command.discussion.isEmpty {
      text += paragraphs(command.discussion) + "\n\n"
    }
    text += usage(command.usage) + "\n\n"
    if !command.arguments.isEmpty {
      text += "ARGUMENTS:\n"
      for argument in command.arguments {
        text += row(argument.label, argument.help)
      }
      text += "\n"
    }
    text += "OPTIONS:\n"
    for option in command.options {
      text += row(option.synopsis, option.fullHelp)
    }
    text += row("-h, --help", "Show help information.")
    return text
  }

  /// The tool's own `--help`.
  static func toolText(commands: [CommandSpec]) -> String {
    var text = "OVERVIEW: \(Tool.abstract)\n\n"
    text += paragraphs(Tool.discussion) + "\n\n"
    text += "USAGE: flowchart <subcommand>\n\n"
    text += "OPTIONS:\n"
    text += row("-h, --help", "Show help information.")
    text += "\nSUBCOMMANDS:\n"
    for command in commands {
      text += row(command.name, command.abstract)
    }
    text += row("help", "Show subcommand help information.")
    text += "\n  See 'flowchart help <subcommand>' for detailed help.\n"
    return text
  }

  /// `USAGE: ` and `usage`, wrapped, further lines indented under the first word after
  /// `USAGE: `.
  static func usage(_ usage: String) -> String {
    // The lines after the first are indented under the usage, so they hold that much less.
    let indent = String(repeating: " ", count: "USAGE: ".count)
    let lines = wrapped("USAGE: " + usage, width: width)
    let rest = wrapped(lines.dropFirst().joined(separator: " "), width: width - indent.count)
    return ([lines[0]] + (lines.count > 1 ? rest : [])).joined(separator: "\n" + indent)
  }

  /// `text` with each paragraph (separated by a blank line) wrapped to ``width``, except
  /// those with an indented line, such as a command example or a table, kept as written.
  static func paragraphs(_ text: String) -> String {
    text.split(separator: "\n\n", omittingEmptySubsequences: false).map { paragraph in
      let lines = paragraph.split(separator: "\n")
      guard !lines.contains(where: { $0.hasPrefix(" ") }) else { return String(paragraph) }
      return wrapped(lines.joined(separator: " "), width: width).joined(separator: "\n")
    }.joined(separator: "\n\n")
  }

  /// One row of two columns: `label` indented by two, `help` from ``column``, wrapped; on
  /// the next line when `label` reaches the column.
  static func row(_ label: String, _ help: String) -> String {
    let indent = String(repeating: " ", count: column)
    var text = "  " + label
    if text.count + 2 > column {
      text += "\n" + indent
    } else {
      text += String(repeating: " ", count: column - text.count)
    }
    text += wrapped(help, width: width - column).joined(separator: "\n" + indent)
    return text + "\n"
  }

  /// `text` broken into lines of at most `width` characters, between words.
  static func wrapped(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ") {
      if !line.isEmpty, line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += line.isEmpty ? String(word) : " " + word
    }
    lines.append(line)
    return lines
  }

  /// `error` as swift-argument-parser prints it: the error, the help line of the argument
  /// at fault, the usage, and where to read more.
  static func text(of error: UsageError, commands: [CommandSpec]) -> String {
    var text = "Error: \(error.message)\n"
    if let help = error.help {
      text += "Help:  \(help)\n"
    }
    if let name = error.command, let command = commands.first(where: { $0.name == name }) {
      text += "Usage: \(command.usage)\n"
      text += "  See 'flowchart \(name) --help' for more information.\n"
    } else {
      text += "Usage: flowchart <subcommand>\n"
      text += "  See 'flowchart --help' for more information.\n"
    }
    return text
  }
}
