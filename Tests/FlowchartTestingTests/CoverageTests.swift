import Flowchart
import FlowchartTesting
import Testing

/// The gaps' descriptions without their source locations.
private func placeless(_ gaps: [CoverageGap]) -> [String] {
  gaps.map { $0.description.replacing(" (\($0.state.location))", with: "") }
}

struct CoverageTests {
  @Test func everyRouteCoversEveryExitOfTheHealthWorkflow() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    for route in chart.routes() {
      _ = try await chart.run(with: Subject(), script: route.script, recordingInto: coverage)
    }
    #expect(coverage.isComplete, "\(coverage.report)")
    #expect(coverage.report == "Every state, exit and final decision was taken.")
    coverage.expectComplete()
  }

  @Test func oneRunLeavesTheOtherExitsAndDecisionsReported() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    _ = try await coverage.recordingChart.run(with: Subject(isInjured: true))
    let file = "FlowchartTestingTests/Fixtures.swift"
    #expect(
      coverage.report == """
        The runs left 4 gaps:
          exit yes of condition 'Willing to exercise?' (\(file):21) never taken
          action 'Lift weights' (\(file):22) never entered
          action 'Do sit-ups' (\(file):26) never entered
          decision no of condition 'Injured?' (\(file):31) never made
        """)
  }

  @Test func anIncompleteCoverageFailsListingItsGaps() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    _ = try await chart.run(
      with: Subject(), script: ["Willing to exercise?": .no], recordingInto: coverage)
    let line = #line + 1
    let issues = IssueReporting.recording { coverage.expectComplete() }
    #expect(issues.count == 1)
    #expect(issues.first?.comment.contains("exit yes of condition 'Willing to exercise?'") == true)
    #expect(issues.first?.sourceLocation.line == line)
  }

  @Test func gapsNameWhatWasMissed() async throws {
    let chart = try healthWorkflow()
    let coverage = Coverage(of: chart)
    #expect(coverage.gaps.map(\.missing) == Array(repeating: .state, count: 4))
    _ = try await coverage.recordingChart.run(with: Subject(isWillingToExercise: true))
    let willing = try #require(chart.state(named: "Willing to exercise?"))
    let injured = try #require(chart.state(named: "Injured?"))
    #expect(
      coverage.gaps == [
        CoverageGap(state: chart[willing], missing: .exit(.no)),
        CoverageGap(state: chart[injured], missing: .state),
      ])
    coverage.reset()
    #expect(coverage.gaps.count == 4)
  }

  @Test func dispatchBranchesKeysAndDefaultsAreCovered() async throws {
    let chart = try everyKindChart()
    let coverage = Coverage(of: chart)
    // Its own code: `Plan?` decides free, `Has changes?` yes.
    _ = try await coverage.recordingChart.run(with: Counter())
    #expect(
      placeless(coverage.gaps) == [
        "exit pro of multiple condition 'Plan?' never taken",
        "exit default of multiple condition 'Plan?' never taken",
        "action 'Invite team' never entered",
        "exit no of condition 'Has changes?' never taken",
        "action 'Skip' never entered",
      ])
    _ = try chart.runSynchronously(
      with: Counter(), script: Script().taking("Plan?", .default).deciding("Has changes?", .no),
      recordingInto: coverage)
    #expect(
      placeless(coverage.gaps) == [
        "exit pro of multiple condition 'Plan?' never taken"
      ])
    _ = try chart.runSynchronously(
      with: Counter(), script: ["Plan?": .key(Plan.pro)], recordingInto: coverage)
    #expect(coverage.isComplete, "\(coverage.report)")
  }

  @Test func aDispatchThatNeverJoinsLeavesItsNextExitUntaken() async throws {
    struct Failure: Error {}
    // swift-format-ignore
    let chart = try Flowchart<Counter> {
      Dispatch("Both") {
        Branch { Action("Fine", isFinal: true) }
        Branch { Action("Fails", isFinal: true) { _ in throw Failure() } }
      }
      Action("After", isFinal: true)
    }
    let coverage = Coverage(of: chart)
    await #expect(throws: RunError.self) {
      try await coverage.recordingChart.run(with: Counter())
    }
    #expect(
      placeless(coverage.gaps) == [
        "exit next of dispatch 'Both' never taken",
        "action 'After' never entered",
      ])
  }

  @Test func coverageRecordsOnlyTheChartItWasMadeFor() throws {
    let coverage = Coverage(of: try retryLoop())
    let error = #expect(throws: ScriptError.self) {
      try everyKindChart().scripted(Script(), recordingInto: coverage)
    }
    #expect(
      error?.message
        == "A coverage records the runs of the chart it was made for, and this chart is another one (9 states, against 3). Make a Coverage(of:) this chart."
    )
  }
}
