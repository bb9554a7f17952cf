/// The `flowchart` tool: reads the command line, runs the command, and says what to print
/// and how to exit.
enum Tool {
  /// The tool's one-line description.
  static let abstract = "Check, print, draw, convert and run flowchart files."

  /// The paragraphs of the tool's `--help` after its abstract.
  static let discussion = """
    A chart file is JSON (.json) or XML (.xml), in the format of the FlowchartFiles
    library. The tool has none of your Swift code: a handler name in a file is bound to
    a stand-in, so an action bound to code does nothing, and a condition bound to code
    needs its decision forced with `run --decide`.

    EXIT CODES:
      0   Success: the command did what it was asked; every file is valid.
      1   A chart file is invalid or cannot be read, or a run did not reach a final
          state. The problems are on standard error.
      2   A run saved with --store (or resumed) waits for input or for a time: its id
          is printed (`Run ID: <id>`); go on with `flowchart resume`.
      64  Usage error: an unknown command or option, a missing or invalid argument.
    """

  /// Every command, in the order the tool's help lists them.
  static let commands: [CommandSpec] = [
    CommandSpec(
      name: "validate", abstract: "Check chart files and report every problem.",
      discussion: """
        Reads each file, with the files it includes, and compiles it. For each valid file,
        prints its name and number of states. For an invalid one, writes its problems to
        standard error as compilers do, so that editors and CI can point at it (the first
        100 of a file, then a line that counts the others):

          chart.json:7:9: error: GoTo 'Lift weight' refers to no state. ...

        Exits with 1 once every file has been checked if any has a problem.
        """,
      arguments: [
        ArgumentSpec(
          name: "files", help: "The chart files to check, JSON (.json) or XML (.xml).",
          isRepeated: true)
      ]),
    CommandSpec(
      name: "print", abstract: "Print a chart as a text tree.",
      discussion: """
        Prints the tree Flowchart's printer draws: one line per state, its kind's letter
        (S condition, M multiple condition, A action, D dispatch), ` !` after a final
        state and ` *` after a state already drawn.
        """,
      arguments: [fileArgument]),
    CommandSpec(
      name: "diagram", abstract: "Draw a chart as a Mermaid or Graphviz diagram.",
      discussion: """
        Writes the diagram to standard output. Render the DOT with Graphviz:
          flowchart diagram chart.json --format dot | dot -Tsvg -o chart.svg

        With --run, draws on it a run that `run --log-file` logged: the states it
        entered, with their visits and time, the exits it took, where it failed or was
        cancelled and why, and the states it never reached, faded.
        """,
      arguments: [fileArgument],
      options: [
        OptionSpec(
          name: "--format", valueName: "format",
          help: "The diagram's language: mermaid or dot.", allowedValues: ["mermaid", "dot"],
          defaultValue: "mermaid"),
        OptionSpec(
          name: "--run", valueName: "run-log",
          help: "A run log of the chart (JSON lines, from run --log-file) to draw on it."),
      ]),
    CommandSpec(
      name: "convert", abstract: "Write a chart in JSON or XML.",
      discussion: """
        Checks the chart as validate does, then writes it to standard output in the
        syntax asked for. Reading what was written gives the same chart. A chart with
        problems is not written: its problems go to standard error, and the exit code is
        1, as for validate.
        """,
      arguments: [fileArgument],
      options: [
        OptionSpec(
          name: "--to", valueName: "syntax", help: "The syntax to write: json or xml.",
          allowedValues: ["json", "xml"], isRequired: true)
      ]),
    CommandSpec(
      name: "run", abstract: "Run a chart that needs no Swift code.",
      discussion: """
        Runs the chart from its start on the context given, a JSON value that the chart's
        built-in conditions read and its stores write. Prints the final state and its
        decision, the path, and the final context. A state bound to code by name runs a
        stand-in: an action does nothing; a condition or multiple condition needs its
        decision forced with --decide, or the run stops there. A waiting state takes the
        value --send gives it, or the run stops there.

        A run that enters more states than --step-limit allows (100000 unless given) stops
        with an error that names the limit and the state it was about to enter, and exits
        with 1: a loop whose exit is never taken ends rather than run forever. With --log,
        each step is printed as the run takes it.

        With --store, the run is saved in a run store when it waits, fails or finishes.
        A run that waits prints `Run ID: <id>` on a line of its own and exits with 2;
        `flowchart resume <store> <id> --send '<state>=<json>'` goes on with it, in
        another process, and `flowchart runs <store>` lists the store's runs. With
        --store, --log-file and --report hold the run up to where it rests; `resume`
        takes them too, for the part it runs.
        """,
      arguments: [fileArgument],
      options: [
        OptionSpec(
          name: "--context", valueName: "json", help: "The run's context, a JSON value.",
          defaultValue: "{}"),
        OptionSpec(
          name: "--decide", valueName: "state=decision",
          help:
            "Force a state's decision: yes or no for a condition, a key for a multiple condition. Split at the last '='. Repeat for more states, or for one state's later visits: each visit takes the next, in order (--decide 'Ready?=no' --decide 'Ready?=yes' goes round a loop once). Reaches the states of the charts subflows and maps run, by name. `flowchart routes --json` gives each route's values.",
          isRepeatable: true),
        OptionSpec(name: "--fail", valueName: "state[=how]", help: failHelp, isRepeatable: true),
        OptionSpec(
          name: "--send", valueName: "state=json",
          help:
            "Send a waiting state its input, a JSON value. Split at the first '='. Repeat for more states.",
          isRepeatable: true),
        OptionSpec(
          name: "--step-limit", valueName: "n", help: stepLimitHelp,
          defaultValue: "\(defaultStepLimit)"),
        OptionSpec(
          name: "--log",
          help:
            "Print each state as the run enters it, and the exit it takes, as the run goes."),
        OptionSpec(
          name: "--log-file", valueName: "path",
          help:
            "Write the run's log to a file, one JSON object per line, for diagram --run and bug reports."
        ),
        OptionSpec(
          name: "--report", valueName: "path",
          help:
            "Write a report of the run to an HTML file that needs nothing else: the diagram with the run drawn on it (as SVG when Graphviz's dot is on PATH), its states, a timeline and its log."
        ),
        OptionSpec(name: "--store", valueName: "directory", help: storeHelp),
      ]),
    runsCommand,
    resumeCommand,
    routesCommand,
    exportCommand,
    handleCommand,
  ]

  /// The argument of the commands that read one file.
  private static var fileArgument: ArgumentSpec {
    ArgumentSpec(name: "file", help: "The chart file, JSON (.json) or XML (.xml).")
  }

  /// Runs the command line `arguments` (without the tool's own name).
  ///
  /// What a command writes as it goes (the lines of `run --log`, as the run reports each
  /// step) goes to `output` at once; without `output`, it starts the outcome's output, as
  /// if it had been written first.
  static func run(_ arguments: [String], output: OutputSink? = nil) async -> Outcome {
    var outcome = Outcome()
    do throws(UsageError) {
      guard let first = arguments.first else {
        throw UsageError(message: "Missing required subcommand.")
      }
      if first == "-h" || first == "--help" {
        outcome.output = Help.toolText(commands: commands)
        return outcome
      }
      if first == "help" {
        return try help(for: Array(arguments.dropFirst()))
      }
      guard let command = commands.first(where: { $0.name == first }) else {
        let message =
          first.hasPrefix("-") ? "Unknown option '\(first)'" : "Unexpected argument '\(first)'"
        throw UsageError(message: message)
      }
      guard let parsed = try command.parse(Array(arguments.dropFirst())) else {
        outcome.output = Help.text(of: command)
        return outcome
      }
      return await execute(command.name, parsed, output: output)
    } catch {
      // As swift-argument-parser does, a bare `flowchart` gets the whole help after the
      // error rather than the usage line.
      outcome.errorOutput =
        arguments.isEmpty
        ? "Error: \(error.message)\n\n" + Help.toolText(commands: commands)
        : Help.text(of: error, commands: commands)
      outcome.exitCode = .usageError
      return outcome
    }
  }

  /// `flowchart help [<subcommand>]`.
  private static func help(for arguments: [String]) throws(UsageError) -> Outcome {
    var outcome = Outcome()
    guard let name = arguments.first else {
      outcome.output = Help.toolText(commands: commands)
      return outcome
    }
    guard let command = commands.first(where: { $0.name == name }), arguments.count == 1 else {
      throw UsageError(
        message: "Unexpected argument '\(arguments.count == 1 ? name : arguments[1])'")
    }
    outcome.output = Help.text(of: command)
    return outcome
  }
}
