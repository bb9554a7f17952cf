import Flowchart

/// Rewords the compiler's advice, written for Swift declarations (`isFinal: true`, `yes:`,
/// `Case`), in the words of a chart file's syntax (`final="true"`, `<yes>`, `<case>`).
///
/// Only whole phrases of advice are replaced, never a state's name: each phrase holds
/// punctuation that a quoted name would show escaped or inside its quotes.
enum FileWording {
  static func reword(_ message: String, path: String) -> String {
    let table: [(String, String)]
    switch ChartSyntax(pathExtension: String(path.split(separator: ".").last ?? "")) {
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
    ("Action(\"Done\", isFinal: true).", "<action name=\"Done\" final=\"true\"/>."),
    ("Remove isFinal: true,", "Remove final=\"true\","),
    ("(isFinal: true)", "(final=\"true\")"),
    ("declares yes: and no: branches,", "declares <yes> and <no> blocks,"),
    ("Give it yes: and no: branches,", "Give it <yes> and <no> blocks,"),
    (
      "Declare a Case for each key it can decide (and a Default if you like),",
      "Declare a <case> for each key it can decide (and a <default> if you like),"
    ),
    ("Add a Case for each, or a Default.", "Add a <case> for each, or a <default>."),
    ("Declare at least one Branch,", "Declare at least one <branch>,"),
    ("declare it without one: Branch { … }.", "leave out its name attribute."),
    (
      "list it in entryPoints: if runs start there,",
      "list it as an <entryPoint> if runs start there,"
    ),
  ]

  private static let json: [(String, String)] = [
    (
      "Add an OutcomeRule for it to the chart's outcomes",
      "Add a rule for it to the file's \"outcomes\""
    ),
    ("Action(\"Done\", isFinal: true).", "{\"action\": \"Done\", \"final\": true}."),
    ("Remove isFinal: true,", "Remove \"final\": true,"),
    ("(isFinal: true)", "(\"final\": true)"),
    ("declares yes: and no: branches,", "declares \"yes\" and \"no\" blocks,"),
    ("Give it yes: and no: branches,", "Give it \"yes\" and \"no\" blocks,"),
    (
      "Declare a Case for each key it can decide (and a Default if you like),",
      "Declare a \"case\" exit for each key it can decide (and a \"default\" one if you like),"
    ),
    ("Add a Case for each, or a Default.", "Add a \"case\" exit for each, or a \"default\" one."),
    ("Declare at least one Branch,", "Declare at least one branch,"),
    ("declare it without one: Branch { … }.", "leave out its \"name\"."),
    (
      "list it in entryPoints: if runs start there,",
      "list it in \"entryPoints\" if runs start there,"
    ),
  ]
}
