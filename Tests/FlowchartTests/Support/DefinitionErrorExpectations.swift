import Flowchart
import FlowchartTesting
import Testing

/// A problem a test expects: FlowchartTesting's, whose file defaults to the one it is
/// written in. (A type alias, so that the test files need not import FlowchartTesting.)
typealias ExpectedProblem = FlowchartTesting.ExpectedProblem

/// Runs `compile`, which must throw a ``DefinitionError``, and returns the error; records an
/// issue and returns `nil` when it compiles.
///
/// Tests that check source lines use this rather than `#expect(throws:)`: declarations
/// written inside a macro's argument may be re-emitted by the macro's expansion, and
/// their `#line` then points at the macro rather than at the declaration.
func definitionError<Context>(
  sourceLocation: Testing.SourceLocation = #_sourceLocation,
  _ compile: () throws -> Flowchart<Context>
) -> DefinitionError? {
  do {
    let chart = try compile()
    Issue.record(
      "Expected a DefinitionError, but the chart compiled:\n\(chart)",
      sourceLocation: sourceLocation)
  } catch let error as DefinitionError {
    return error
  } catch {
    Issue.record(error, "Expected a DefinitionError", sourceLocation: sourceLocation)
  }
  return nil
}

/// Expects `error` to list exactly `expected` (FlowchartTesting's ``ExpectedProblem``s,
/// which point into the file they are written in), in that order.
///
/// Each problem must also end its message with a full stop, and describe itself as
/// `location: message`.
func expectProblems(
  _ error: DefinitionError?, _ expected: [ExpectedProblem],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  guard let error else {
    Issue.record("Expected a DefinitionError, got none", sourceLocation: sourceLocation)
    return
  }
  // FlowchartTesting's expected problems check the kind, the name, and the file and line.
  let matches =
    error.problems.count == expected.count
    && zip(expected, error.problems).allSatisfy { $0.matches($1) }
  #expect(matches, "expected \(expected), got: \(error)", sourceLocation: sourceLocation)
  for problem in error.problems {
    #expect(problem.message.hasSuffix("."), "\(problem)", sourceLocation: sourceLocation)
    #expect(
      problem.description
        == "\(problem.location.fileID):\(problem.location.line): \(problem.message)",
      sourceLocation: sourceLocation)
  }
}

/// Expects `error` to hold exactly one problem of `kind`, about `name`, at `line`, whose
/// message contains each of `phrases`; returns it for further checks.
@discardableResult
func expectOnlyProblem(
  _ error: DefinitionError?, _ kind: DefinitionError.Kind, name: String?, line: Int,
  saying phrases: [String] = [], sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> DefinitionError.Problem? {
  let expected = ExpectedProblem(kind, name, line: line, fileID: sourceLocation.fileID)
  expectProblems(error, [expected], sourceLocation: sourceLocation)
  guard let problem = error?.problems.first, error?.problems.count == 1 else { return nil }
  for phrase in phrases {
    #expect(
      problem.message.contains(phrase), "«\(phrase)» is missing from: \(problem.message)",
      sourceLocation: sourceLocation)
  }
  return problem
}
