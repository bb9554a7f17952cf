import Foundation

/// The entry point: `flowchart <subcommand>`. Everything but writing and exiting is in
/// ``Tool``, so that tests can run commands.
@main
enum FlowchartTool {
  static func main() async {
    let outcome = await Tool.run(Array(CommandLine.arguments.dropFirst()))
    FileHandle.standardOutput.write(Data(outcome.output.utf8))
    FileHandle.standardError.write(Data(outcome.errorOutput.utf8))
    exit(outcome.exitCode.rawValue)
  }
}
