import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// The README's "Charts in files" section, compiled and checked.
struct ReadmeTests {
  @Test func healthFromAFileRunsAsTheREADMESays() async throws {
    let url = sampleURL("health", .xml)
    var handlers = HandlerRegistry<Subject>()
    handlers["isWillingToExercise"] = .condition { $0.isWillingToExercise }
    handlers["isInjured"] = .condition { $0.isInjured }
    handlers["liftWeights"] = .action { _ in try await Task.sleep(for: .milliseconds(20)) }
    handlers["doSitUps"] = .action { _ in try await Task.sleep(for: .milliseconds(10)) }

    let file = try ChartFile.read(contentsOf: url)
    let healthFromFile = try file.flowchart(handlers: handlers)
    let fromFile = try await healthFromFile.run(
      with: Subject(isWillingToExercise: true, isInjured: false))
    #expect(fromFile.finalStateName == "Do sit-ups")
    #expect(
      file.text(in: .json) == (try String(contentsOf: sampleURL("health", .json), encoding: .utf8)))
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
          mistakes.xml:5:7: GoTo 'Do sit-up' refers to no state. Declare a state named 'Do sit-up', or use one of the declared names (did you mean 'Do sit-ups'?).
        """)
    }
  }
}
