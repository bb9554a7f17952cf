import Foundation

/// The entry point: `flowchart <subcommand>`. Everything but writing and exiting is in
/// ``Tool``, so that tests can run commands.
@main
enum FlowchartTool {
  static func main() async {
    // What a command writes as it goes (`run --log`) goes out at once: `FileHandle` writes
    // straight to the descriptor, with no buffer to flush.
    let output = OutputSink { text in FileHandle.standardOutput.write(Data(text.utf8)) }
    let outcome = await Tool.run(Array(CommandLine.arguments.dropFirst()), output: output)
    FileHandle.standardOutput.write(Data(outcome.output.utf8))
    FileHandle.standardError.write(Data(outcome.errorOutput.utf8))
    exit(outcome.exitCode.rawValue)
  }
}
