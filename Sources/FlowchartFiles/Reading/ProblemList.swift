import Flowchart

/// The problems a reader or the binder has found so far, to be thrown together.
struct ProblemList {
  var problems: [DefinitionError.Problem] = []
  /// The names of states a reader left out for a problem of theirs: an arrow to one is no
  /// problem of its own (see `ChartFile.nameProblems(besides:)`).
  var droppedStates: Set<String> = []

  var isEmpty: Bool { problems.isEmpty }

  /// Records a problem of `kind`.
  mutating func add(
    _ kind: DefinitionError.Kind, _ message: String, at location: SourceLocation,
    name: String? = nil
  ) {
    problems.append(DefinitionError.Problem(kind, name: name, at: location, message: message))
  }

  /// Records a problem with the file's format.
  mutating func malformed(_ message: String, at location: SourceLocation, name: String? = nil) {
    add(.malformedFile, message, at: location, name: name)
  }

  /// Records a block at `location` whose states nest more than ``maximumStateDepth`` levels
  /// deep, as both readers say it.
  mutating func statesTooDeep(at location: SourceLocation) {
    malformed(
      "States nest more than \(maximumStateDepth) levels deep here: flatten the chart with goTo arrows, or split it.",
      at: location)
  }

  /// The error for the chart in `path`, its problems sorted by file, line and column (a
  /// stable sort: problems at one place keep the order they were found in).
  func error(path: String) -> DefinitionError {
    DefinitionError(
      collecting: Self.sorted(problems), at: SourceLocation(fileID: path, line: 1, column: 1))
  }

  static func sorted(_ problems: [DefinitionError.Problem]) -> [DefinitionError.Problem] {
    problems.enumerated().sorted {
      let (left, right) = ($0.element.location, $1.element.location)
      return (left.fileID, left.line, left.column ?? 0, $0.offset)
        < (right.fileID, right.line, right.column ?? 0, $1.offset)
    }.map(\.element)
  }
}

/// The deepest a chart's states may nest: blocks inside blocks, includes counted.
let maximumStateDepth = 100
