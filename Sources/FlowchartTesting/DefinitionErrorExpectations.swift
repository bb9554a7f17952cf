import Flowchart
import Testing

/// A problem a test expects a chart's compilation to report: its kind, the line of the
/// declaration it points at, and perhaps the name it is about.
///
/// The file is the one the expected problem is written in, so a problem reported in
/// another file (such as a helper's) does not match by accident.
public struct ExpectedProblem: Sendable, Hashable, CustomStringConvertible {
  /// The problem's kind.
  public var kind: DefinitionError.Kind
  /// The name the problem is about, when the expectation checks it; see ``checksName``.
  public var name: String?
  /// Whether the expectation checks ``name`` (`nil` then meaning a problem about the chart
  /// as a whole).
  public var checksName: Bool
  /// The line of the declaration the problem points at.
  public var line: Int
  /// The file of the declaration, as `#fileID` gives it.
  public var fileID: String

  /// Expects a problem of `kind` at `line` of the file this is written in, whatever name
  /// it is about.
  public init(_ kind: DefinitionError.Kind, line: Int, fileID: String = #fileID) {
    self.kind = kind
    name = nil
    checksName = false
    self.line = line
    self.fileID = fileID
  }

  /// Expects a problem of `kind` about `name` (`nil` for the chart as a whole) at `line`
  /// of the file this is written in.
  public init(
    _ kind: DefinitionError.Kind, _ name: String?, line: Int, fileID: String = #fileID
  ) {
    self.kind = kind
    self.name = name
    checksName = true
    self.line = line
    self.fileID = fileID
  }

  /// Whether `problem` is the one expected.
  public func matches(_ problem: DefinitionError.Problem) -> Bool {
    problem.kind == kind && problem.location.line == line && problem.location.fileID == fileID
      && (!checksName || problem.name == name)
  }

  /// `unknown name 'Fetch' at App/Onboarding.swift:15`, or without the name when it is
  /// not checked.
  public var description: String {
    let about = checksName ? " '\(name ?? "nil")'" : ""
    return "\(kind)\(about) at \(fileID):\(line)"
  }
}

extension DefinitionError.Problem {
  /// The problem as ``ExpectedProblem`` describes one: kind, name, file and line.
  var summary: String {
    "\(kind) '\(name ?? "nil")' at \(location.fileID):\(location.line)"
  }
}

/// Compiles a chart that must fail, and expects its `DefinitionError` to list exactly
/// `expected`, in order; returns the error for further checks.
///
/// Declarations written inside a macro's argument, as in `#expect(throws:)`, may be
/// re-emitted by the macro's expansion, and their `#line` then points at the macro rather
/// than at the declaration; compiling in this function's closure keeps every line where it
/// was written.
///
/// ```swift
/// expectDefinitionError([
///   ExpectedProblem(.unknownName, "Fetch", line: 14),
/// ]) {
///   try Flowchart<Launch> {
///     Action("Start")
///     GoTo("Fetch")   // line 14
///   }
/// }
/// ```
///
/// On a mismatch the issue lists the expected and the reported problems, then the error's
/// description; when the chart compiles, the issue shows its tree.
///
/// - Parameters:
///   - expected: The problems, in the order the error lists them (by file and line).
///   - sourceLocation: Where issues point; keep the default, the caller.
///   - compile: Compiles the chart.
/// - Returns: The error, or `nil` when the chart compiled or something else was thrown.
@discardableResult
public func expectDefinitionError<Context>(
  _ expected: [ExpectedProblem], sourceLocation: Testing.SourceLocation = #_sourceLocation,
  compiling compile: () throws -> Flowchart<Context>
) -> DefinitionError? {
  let error: DefinitionError
  do {
    let chart = try compile()
    IssueReporting.report(
      "Expected a DefinitionError, but the chart compiled:\n\(chart)",
      sourceLocation: sourceLocation)
    return nil
  } catch let thrown as DefinitionError {
    error = thrown
  } catch {
    IssueReporting.report(
      "Expected a DefinitionError", error: error, sourceLocation: sourceLocation)
    return nil
  }
  let matches =
    error.problems.count == expected.count
    && zip(expected, error.problems).allSatisfy { $0.matches($1) }
  if !matches {
    let report =
      ["The definition error lists other problems than expected.", "Expected:"]
      + expected.map { "  \($0)" } + ["Reported:"] + error.problems.map { "  \($0.summary)" }
      + ["Error:", "\(error)"]
    IssueReporting.report(report.joined(separator: "\n"), sourceLocation: sourceLocation)
  }
  return error
}
