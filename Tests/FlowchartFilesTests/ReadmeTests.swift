import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// The README's "Charts in files" section, compiled and checked.
///
/// When the README's example changes, change its copy here.
struct ReadmeTests {
  @Test func theREADMEsFilesExampleIsCopiedHere() throws {
    let thisFile = URL(fileURLWithPath: #filePath)
    let readme = try String(
      contentsOf: samplesFolder.deletingLastPathComponent().appendingPathComponent("README.md"),
      encoding: .utf8)
    let copies = try String(contentsOf: thisFile, encoding: .utf8)
      .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let blocks = readme.components(separatedBy: "```swift\n").dropFirst()
      .map { $0.components(separatedBy: "```")[0] }
      .filter { $0.hasPrefix("import FlowchartFiles") }
    #expect(blocks.count == 1)
    for block in blocks {
      var rest = copies[...]
      for line in block.split(separator: "\n").dropFirst() {
        let line = line.trimmingCharacters(in: .whitespaces)
        guard let found = rest.firstIndex(of: line) else {
          Issue.record("README line not copied into ReadmeTests.swift: \(line)")
          break
        }
        rest = rest[(found + 1)...]
      }
    }
  }

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
