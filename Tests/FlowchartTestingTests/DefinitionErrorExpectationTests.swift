import Flowchart
import FlowchartTesting
import Testing

struct DefinitionErrorExpectationTests {
  @Test func problemsMatchByKindNameAndLine() {
    // swift-format-ignore
    let error = expectDefinitionError([
      ExpectedProblem(.unknownName, "Fetch", line: #line + 6),
      ExpectedProblem(.exitLeadsNowhere, line: #line + 7),
    ]) {
      try Flowchart<Counter> {
        Condition("Check") { _ in true } yes: {
          Action("Start")
          GoTo("Fetch")
        } no: {
          Action("Log")
        }
      }
    }
    #expect(error?.problems.count == 2)
  }

  @Test func aChartThatCompilesFails() {
    let issues = IssueReporting.recording {
      expectDefinitionError([ExpectedProblem(.unknownName, line: 1)]) {
        try retryLoop()
      }
    }
    #expect(issues.count == 1)
    #expect(
      issues.first?.comment.hasPrefix(
        "Expected a DefinitionError, but the chart compiled:\nFetch (A)") == true)
  }

  @Test func otherProblemsFailListingBoth() {
    // swift-format-ignore
    let issues = IssueReporting.recording {
      expectDefinitionError([ExpectedProblem(.unknownName, "Fetch", line: 3)]) {
        try Flowchart<Counter> {
          GoTo("Fetch")
          Action("Start", isFinal: true)
        }
      }
    }
    #expect(issues.count == 1)
    let file = "FlowchartTestingTests/DefinitionErrorExpectationTests.swift"
    #expect(
      issues.first?.comment.contains(
        "Expected:\n  unknown name 'Fetch' at \(file):3\nReported:\n  unknown name 'Fetch' at \(file):"
      ) == true)
  }

  @Test func anExpectedProblemDescribesItself() {
    #expect(
      ExpectedProblem(.unknownName, "Fetch", line: 12, fileID: "App/Flow.swift").description
        == "unknown name 'Fetch' at App/Flow.swift:12")
    #expect(
      ExpectedProblem(.unreachable, line: 3, fileID: "App/Flow.swift").description
        == "unreachable state at App/Flow.swift:3")
  }
}
