extension Tool {
  /// Runs the command `name` with its parsed arguments.
  static func execute(_ name: String, _ arguments: ParsedArguments) async -> Outcome {
    var outcome = Outcome()
    outcome.complain("Error: '\(name)' needs the FlowchartFiles library, which is not built yet.")
    outcome.exitCode = .failure
    return outcome
  }
}
