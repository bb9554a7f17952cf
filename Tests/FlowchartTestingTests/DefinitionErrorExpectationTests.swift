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
    withKnownIssue {
      expectDefinitionError([ExpectedProblem(.unknownName, line: 1)]) {
        try retryLoop()
      }
    } matching: { issue in
      issue.comments.contains {
        $0.rawValue.hasPrefix("Expected a DefinitionError, but the chart compiled:\nFetch (A)")
      }
    }
  }

  @Test func otherProblemsFailListingBoth() {
    // swift-format-ignore
    withKnownIssue {
      expectDefinitionError([ExpectedProblem(.unknownName, "Fetch", line: 3)]) {
        try Flowchart<Counter> {
          GoTo("Fetch")
          Action("Start", isFinal: true)
        }
      }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("Expected:\n  unknown name 'Fetch' at FlowchartTestingTests/DefinitionErrorExpectationTests.swift:3\nReported:\n  unknown name 'Fetch' at FlowchartTestingTests/DefinitionErrorExpectationTests.swift:")
    }
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
