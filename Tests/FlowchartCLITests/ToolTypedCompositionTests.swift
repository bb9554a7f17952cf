import Testing

@testable import FlowchartCLI

/// The tool on subflows and maps that name a registered mapping or collection, which it has
/// no Swift code for: it binds them to stand-ins, as it binds handlers.
struct ToolTypedCompositionTests {
  @Test(arguments: ["shop.json", "shop.xml"])
  func aChartWithAMappingAndACollectionValidates(name: String) async {
    let outcome = await Tool.run(["validate", sample(name)])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(outcome.output == "\(sample(name)): valid, 4 states\n")
  }

  @Test func aMappedSubflowRunsItsChartOnTheWholeContext() async throws {
    let files = try TemporaryFiles()
    let inner = try files.write(
      "inner.json",
      #"{"flowchart": [{"action": "Mark", "final": true, "store": [{"path": "marked", "value": true}]}]}"#
    )
    let main = try files.write(
      "main.xml",
      """
      <flowchart>
        <subflow name="Mark the order" chart="\(inner)" mapping="order"/>
        <map name="Each photo" over="photos" into="done">
          <action name="Touch" final="true" run="touch"/>
        </map>
        <action name="Done" final="true"/>
      </flowchart>
      """)
    let outcome = await Tool.run(["run", main, "--context", #"{"photos": [1, 2]}"#])
    #expect(outcome.exitCode == .success, "\(outcome.errorOutput)")
    #expect(
      outcome.output.contains(#"Context: {"done": [1, 2], "marked": true, "photos": [1, 2]}"#),
      "\(outcome.output)")
  }

  @Test func aSubflowWithAPathAndAMappingIsALocatedError() async throws {
    let files = try TemporaryFiles()
    let main = try files.write(
      "main.json",
      #"{"flowchart": [{"subflow": "S", "chart": "s.json", "context": "a", "mapping": "b", "final": true}]}"#
    )
    let outcome = await Tool.run(["validate", main])
    #expect(outcome.exitCode == .failure)
    #expect(
      outcome.errorOutput.hasPrefix(
        #"\#(main):1:16: error: Subflow 'S' has both "context" (a path of the data) and "mapping" (a registered mapping): keep one."#
      ), "\(outcome.errorOutput)")
  }
}
