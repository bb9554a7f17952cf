/// What a command did: the text it wrote to standard output and to standard error, and the
/// status the tool exits with.
///
/// Commands build an outcome rather than writing as they go, so that tests can read what
/// they would print.
struct Outcome: Equatable, Sendable {
  /// What goes to standard output.
  var output = ""
  /// What goes to standard error: errors, warnings and usage.
  var errorOutput = ""
  /// How the tool exits.
  var exitCode = ExitCode.success

  /// Appends `line` and a line break to standard output.
  mutating func say(_ line: String) {
    output += line
    output += "\n"
  }

  /// Appends `line` and a line break to standard error.
  mutating func complain(_ line: String) {
    errorOutput += line
    errorOutput += "\n"
  }
}

/// Where a command writes standard output as it goes, rather than in its ``Outcome``: the
/// lines `run --log` writes while the run goes on, so that a long run shows its steps as they
/// happen and keeps none of them in memory. The tool writes to standard output; a test
/// records.
struct OutputSink: Sendable {
  /// Writes `text` (whole lines, each with its line break).
  let write: @Sendable (String) -> Void

  init(_ write: @escaping @Sendable (String) -> Void) {
    self.write = write
  }
}
