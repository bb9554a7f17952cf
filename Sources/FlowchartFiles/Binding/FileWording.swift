import Flowchart

/// The compiler's advice in the words of a chart file's syntax (`final="true"`, `<goTo>`,
/// `<case>` in XML; `"final": true`, `goTo`, `"case" exit` in JSON) rather than the DSL's
/// (`isFinal: true`, `GoTo`, `Case`).
///
/// The compiler words its findings with ``vocabulary``, by the syntax of the file each
/// problem is in. The outcomes' messages, written apart from the compiler, are reworded by
/// phrase: only whole phrases of advice are replaced, never a state's name, since each
/// phrase holds punctuation that a quoted name would show escaped or inside its quotes.
enum FileWording {
  /// The words of each file's syntax, by its extension; the DSL's for a file of neither.
  static let vocabulary = DeclarationVocabulary { term, fileID in
    switch syntax(of: fileID) {
    case .xml?: xmlWords(term)
    case .json?: jsonWords(term)
    case nil: DeclarationVocabulary.swift(term, in: fileID)
    }
  }

  static func syntax(of path: String) -> ChartSyntax? {
    ChartSyntax(pathExtension: String(path.split(separator: ".").last ?? ""))
  }

  static func xmlWords(_ term: DeclarationVocabulary.Term) -> String {
    switch term {
    case .finalFlag: "final=\"true\""
    case .finalStateExample: "<action name=\"Done\" final=\"true\"/>"
    case .goTo: "<goTo>"
    case .action: "<action>"
    case .caseExit: "<case>"
    case .defaultExit: "<default>"
    case .conditionExits: "<yes> and <no> blocks"
    case .branch: "<branch>"
    case .unnamedBranch: "leave out its name attribute"
    case .entryPointList: "list it as an <entryPoint>"
    }
  }

  static func jsonWords(_ term: DeclarationVocabulary.Term) -> String {
    switch term {
    case .finalFlag: "\"final\": true"
    case .finalStateExample: "{\"action\": \"Done\", \"final\": true}"
    case .goTo: "goTo"
    case .action: "action"
    case .caseExit: "\"case\" exit"
    case .defaultExit: "\"default\" exit"
    case .conditionExits: "\"yes\" and \"no\" blocks"
    case .branch: "branch"
    case .unnamedBranch: "leave out its \"name\""
    case .entryPointList: "list it in \"entryPoints\""
    }
  }

  /// `message`, from the outcomes' checks, in the words of the syntax of `path`.
  static func reword(_ message: String, path: String) -> String {
    let table: [(String, String)]
    switch syntax(of: path) {
    case .xml?: table = xml
    case .json?: table = json
    case nil: return message
    }
    var message = message
    for (swift, file) in table where message.contains(swift) {
      message = message.replacingOccurrences(of: swift, with: file)
    }
    return message
  }

  private static let xml: [(String, String)] = [
    (
      "Add an OutcomeRule for it to the chart's outcomes",
      "Add an <outcome> for it to the file's <outcomes>"
    ),
    ("(isFinal: true)", "(final=\"true\")"),
  ]

  private static let json: [(String, String)] = [
    (
      "Add an OutcomeRule for it to the chart's outcomes",
      "Add a rule for it to the file's \"outcomes\""
    ),
    ("(isFinal: true)", "(\"final\": true)"),
  ]
}
