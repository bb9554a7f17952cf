import Flowchart
import FlowchartFiles
import Foundation
import Testing

struct SampleTests {
  @Test(arguments: ChartSyntax.allCases)
  func firstLaunchPrintsSTWorkflowsTree(syntax: ChartSyntax) throws {
    let file = try ChartFile.read(contentsOf: sampleURL("first-launch", syntax))
    let chart = try file.flowchart(handlers: launchHandlers())
    expectText(
      chart.treeDescription,
      """
      Check first launch (S)
      Y- Fetch something (A)
      |  Final state (A) !
      N- An other check (S)
      |  Y- Final state (A) !
      |  N- Log something (A)
      |  |  Final state (A) !

      """)
  }

  @Test(arguments: ChartSyntax.allCases)
  func firstLaunchRunsTheBoundCode(syntax: ChartSyntax) throws {
    let file = try ChartFile.read(contentsOf: sampleURL("first-launch", syntax))
    let chart = try file.flowchart(handlers: launchHandlers())
    let result = try chart.runSynchronously(
      with: Launch(isFirstLaunch: false, passesOtherCheck: false))
    #expect(result.finalStateName == "Final state")
    #expect(
      result.pathNames == ["Check first launch", "An other check", "Log something", "Final state"])
    #expect(result.context.log == ["logged"])
  }

  @Test(arguments: ChartSyntax.allCases)
  func healthMapsEveryRouteToItsOutcome(syntax: ChartSyntax) async throws {
    let file = try ChartFile.read(contentsOf: sampleURL("health", syntax))
    let chart = try file.flowchart(handlers: healthHandlers())
    #expect(!chart.isSynchronous)
    let willing = try await chart.run(with: Subject(isWillingToExercise: true, isInjured: false))
    #expect(willing.finalStateName == "Do sit-ups")
    #expect(willing.context.log == ["lifted weights", "did sit-ups"])
    let injured = try await chart.run(with: Subject(isWillingToExercise: false, isInjured: true))
    #expect(injured.finalStateName == "Injured?")
    #expect(injured.decision == .yes)
  }

  @Test(arguments: ChartSyntax.allCases)
  func formRoutesByItsAnswersWithNoSwift(syntax: ChartSyntax) throws {
    let file = try ChartFile.read(contentsOf: sampleURL("form", syntax))
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    let complete: ChartValue = [
      "answers": [
        "name": "Ada", "age": 36, "email": "ada@example.com", "plan": "team", "seats": 80,
      ]
    ]
    let sales = try chart.runSynchronously(with: complete)
    #expect(sales.finalStateName == "Call sales")
    #expect(sales.context[path: "status"] == "sales")

    var small = complete
    small[path: "answers.seats"] = 3
    let accepted = try chart.runSynchronously(with: small)
    #expect(accepted.finalStateName == "Accept")
    #expect(accepted.context[path: "status"] == "accepted")

    var minor = complete
    minor[path: "answers.age"] = 12
    #expect(try chart.runSynchronously(with: minor).finalStateName == "Refuse")

    var badEmail = complete
    badEmail[path: "answers.email"] = "ada at example"
    #expect(try chart.runSynchronously(with: badEmail).finalStateName == "Ask again")

    var other = complete
    other[path: "answers.plan"] = "basic"
    let free = try chart.runSynchronously(with: other)
    #expect(free.pathNames.contains("Choose the free plan"))
    #expect(free.context[path: "answers.plan"] == "free")
  }

  @Test(arguments: sampleNames)
  func bothSyntaxesDeclareTheSameChart(name: String) throws {
    let json = try ChartFile.read(contentsOf: sampleURL(name, .json))
    let xml = try ChartFile.read(contentsOf: sampleURL(name, .xml))
    #expect(json.text(in: .json) == xml.text(in: .json))
    #expect(json.text(in: .xml) == xml.text(in: .xml))
  }

  @Test(arguments: sampleNames, ChartSyntax.allCases)
  func samplesAreWrittenAsTheWriterWritesThem(name: String, syntax: ChartSyntax) throws {
    let url = sampleURL(name, syntax)
    let text = try String(contentsOf: url, encoding: .utf8)
    let file = try ChartFile.read(contentsOf: url)
    expectText(file.text(in: syntax), text)
  }

  @Test func statesCarryTheirFileLineAndColumn() throws {
    let file = try ChartFile.read(contentsOf: sampleURL("first-launch", .xml))
    let chart = try file.flowchart(handlers: launchHandlers())
    let other = try #require(chart.state(named: "An other check"))
    #expect(chart[other].location.line == 9)
    #expect(chart[other].location.column == 7)
    #expect(chart[other].location.fileID.hasSuffix("Samples/first-launch.xml"))
    let jsonFile = try ChartFile.read(contentsOf: sampleURL("first-launch", .json))
    let jsonChart = try jsonFile.flowchart(handlers: launchHandlers())
    let log = try #require(jsonChart.state(named: "Log something"))
    #expect(jsonChart[log].location.line == 18)
    #expect(jsonChart[log].location.column == 13)
  }
}
