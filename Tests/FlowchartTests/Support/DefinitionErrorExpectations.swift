import Flowchart
import Testing

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

/// A problem a test expects: its kind, the name it is about and the line it points at.
struct ExpectedProblem: CustomStringConvertible {
  var kind: DefinitionError.Kind
  var name: String?
  var line: Int

  init(_ kind: DefinitionError.Kind, _ name: String?, line: Int) {
    self.kind = kind
    self.name = name
    self.line = line
  }

  var description: String { "\(kind) '\(name ?? "nil")' at line \(line)" }
}

/// Expects `error` to list exactly `expected`, in that order.
///
/// Each problem must also point into the calling test's file, end its message with a full
/// stop, and describe itself as `location: message`.
func expectProblems(
  _ error: DefinitionError?, _ expected: [ExpectedProblem],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  guard let error else {
    Issue.record("Expected a DefinitionError, got none", sourceLocation: sourceLocation)
    return
  }
  let actual = error.problems.map {
    "\($0.kind) '\($0.name ?? "nil")' at line \($0.location.line)"
  }
  #expect(
    actual == expected.map(\.description), "\(error)", sourceLocation: sourceLocation)
  for problem in error.problems {
    #expect(
      problem.location.fileID == sourceLocation.fileID, "\(problem)",
      sourceLocation: sourceLocation)
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
  expectProblems(error, [ExpectedProblem(kind, name, line: line)], sourceLocation: sourceLocation)
  guard let problem = error?.problems.first, error?.problems.count == 1 else { return nil }
  for phrase in phrases {
    #expect(
      problem.message.contains(phrase), "«\(phrase)» is missing from: \(problem.message)",
      sourceLocation: sourceLocation)
  }
  return problem
}
