import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// What the README's "Charts in files" section says of a file: its chart runs as the Swift one
/// does and converts to the JSON sample, and the three mistakes' report is the one shown.
///
/// The section's Swift block itself is compiled and its output checked by `.ci/samples`.
struct ReadmeTests {
  @Test func healthFromAFileRunsAsTheREADMESays() async throws {
    var handlers = HandlerRegistry<Subject>()
    handlers["isWillingToExercise"] = .condition { $0.isWillingToExercise }
    handlers["isInjured"] = .condition { $0.isInjured }
    handlers["liftWeights"] = .action { _ in try await Task.sleep(for: .milliseconds(20)) }
    handlers["doSitUps"] = .action { _ in try await Task.sleep(for: .milliseconds(10)) }

    // The README's path is relative to the package's folder, where `swift test` runs.
    try #require(
      FileManager.default.fileExists(atPath: "Samples/health.xml"),
      "Run the tests from the package's folder, as the README's example is.")
    let file = try ChartFile.read(contentsOf: URL(fileURLWithPath: "Samples/health.xml"))
    let healthFromFile = try file.flowchart(handlers: handlers)
    // swift-format-ignore
    let fromFile = try await healthFromFile.run(with: Subject(isWillingToExercise: true, isInjured: false))
    // The README's `print` calls write here, not to standard output.
    var printed: [String] = []
    func print(_ item: Any) { printed.append("\(item)") }
    print(fromFile.finalStateName)  // Do sit-ups
    print(file.text(in: .json))  // the same chart, as JSON
    #expect(printed.first == "Do sit-ups")
    #expect(printed.last == (try String(contentsOf: sampleURL("health", .json), encoding: .utf8)))
  }

  @Test func threeMistakesAreReportedAsTheREADMEShows() throws {
    let text = """
      <flowchart>
        <condition name="Willing to exercise?" run="isWilling">
          <yes>
            <action name="Lift weights" run="isInjured"/>
            <goTo state="Do sit-up"/>
          </yes>
        </condition>
        <action name="Do sit-ups" final="true" run="doSitUps"/>
      </flowchart>
      """
    let file = try ChartFile.parse(text, syntax: .xml, path: "mistakes.xml")
    do throws(DefinitionError) {
      _ = try file.flowchart(handlers: healthHandlers())
      Issue.record("Expected the three mistakes")
    } catch {
      expectText(
        "\(error)",
        """
        The flowchart declared at mistakes.xml:1:1 has 3 problems:
          mistakes.xml:2:3: Condition 'Willing to exercise?' names the condition 'isWilling', which is not registered. Register it (handlers["isWilling"] = .condition { … }), or fix the name (did you mean 'isWillingToExercise'?).
          mistakes.xml:4:7: Action 'Lift weights' names 'isInjured' as its action, but 'isInjured' is registered as a condition. Name a registered action, or register one under another name.
          mistakes.xml:5:7: <goTo> 'Do sit-up' refers to no state. Declare a state named 'Do sit-up', or use one of the declared names (did you mean 'Do sit-ups'?).
        """)
    }
  }
}
