/// Every problem found while compiling a flowchart declaration, thrown at once.
///
/// The compiler never stops at the first problem: it checks the whole declaration and
/// reports all it found, ordered by source location. Each ``Problem`` names the state,
/// where it was declared, what is wrong and what to do. A mistake is reported once, at its
/// cause: a state is not also reported unreachable, or in a loop, because of a mistake
/// reported elsewhere.
///
/// ```
/// The flowchart declared at App/Onboarding.swift:12 has 2 problems:
///   App/Onboarding.swift:15: GoTo 'Fetch' refers to no state. Declare a state named 'Fetch', or use one of the declared names (did you mean 'Fetch data'?).
///   App/Onboarding.swift:19: Action 'Log' is the last state of the top level and is not final, so the flow has nowhere to go after it. Add a state or a GoTo after it, or declare it final (isFinal: true).
/// ```
public struct DefinitionError: Error, Sendable, CustomStringConvertible {
  /// One problem of a declaration.
  public struct Problem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is, for code that reacts to specific problems.
    public let kind: Kind
    /// The name of the state (or of the referenced name) the problem is about; `nil` when
    /// it concerns the chart as a whole.
    public let name: String?
    /// Where the offending declaration was written.
    public let location: SourceLocation
    /// A full sentence: what is wrong and what to do.
    public let message: String

    /// `location: message`.
    public var description: String { "\(location): \(message)" }
  }

  /// The kinds of definition problem. New kinds may be added in later versions.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private let code: Code

    private enum Code: String, Sendable {
      case emptyChart = "empty chart"
      case invalidName = "invalid name"
      case unknownName = "unknown name"
      case ambiguousName = "ambiguous name"
      case missingExits = "missing exits"
      case exitLeadsNowhere = "exit leads nowhere"
      case duplicateKey = "duplicate key"
      case missingCase = "missing case"
      case finalStateWithExits = "final state with exits"
      case emptyDispatch = "dispatch without branches"
      case emptyBranch = "empty branch"
      case crossesBranchBoundary = "arrow crosses a branch boundary"
      case neverReachesFinalState = "never reaches a final state"
      case unreachable = "unreachable state"
      case unreachableGoTo = "unreachable GoTo"
      case entryPointInBranch = "entry point inside a branch"
      case malformedFile = "malformed file"
      case unreadableFile = "unreadable file"
      case includeCycle = "include cycle"
      case unboundName = "unbound name"
      case mismatchedHandler = "mismatched handler"
      case invalidOutcome = "invalid outcome"
      case missingOutcome = "missing outcome"
      case unknownPrerequisite = "unknown prerequisite"
      case prerequisiteCycle = "prerequisite cycle"
      case invalidDispatchOption = "invalid dispatch option"
      case invalidModifier = "invalid modifier"
      case invalidMapOption = "invalid map option"
      case invalidDelay = "invalid delay"
    }

    /// The chart declares no state at all.
    public static let emptyChart = Kind(code: .emptyChart)
    /// A state's or a branch's name is empty, spans several lines, holds a control
    /// character (such as NUL or a terminal escape) or is only whitespace.
    public static let invalidName = Kind(code: .invalidName)
    /// A ``GoTo`` or entry point names no state.
    public static let unknownName = Kind(code: .unknownName)
    /// A ``GoTo`` or entry point names more than one state.
    public static let ambiguousName = Kind(code: .ambiguousName)
    /// A non-final condition or multiple condition was declared without exits.
    public static let missingExits = Kind(code: .missingExits)
    /// A non-final state has an exit that leads nowhere: nothing follows it in its flow.
    public static let exitLeadsNowhere = Kind(code: .exitLeadsNowhere)
    /// A multiple condition has two exits for the same key, or two defaults.
    public static let duplicateKey = Kind(code: .duplicateKey)
    /// A multiple condition over a `CaseIterable` key has no exit for some cases and no
    /// default.
    public static let missingCase = Kind(code: .missingCase)
    /// A final state declares exits, which could never be taken.
    public static let finalStateWithExits = Kind(code: .finalStateWithExits)
    /// A dispatch has no branches.
    public static let emptyDispatch = Kind(code: .emptyDispatch)
    /// A dispatch branch has no states.
    public static let emptyBranch = Kind(code: .emptyBranch)
    /// A ``GoTo`` enters or leaves a dispatch branch.
    public static let crossesBranchBoundary = Kind(code: .crossesBranchBoundary)
    /// States loop among themselves with no path to a final state. Reported once per loop,
    /// at its first declared state, naming its states in declaration order.
    public static let neverReachesFinalState = Kind(code: .neverReachesFinalState)
    /// A state cannot be reached from the start or any entry point, and would not be once
    /// the other problems reported are fixed.
    public static let unreachable = Kind(code: .unreachable)
    /// A ``GoTo`` that no arrow can take: it follows a final state, which ends its flow, or
    /// another `GoTo`, which already left.
    public static let unreachableGoTo = Kind(code: .unreachableGoTo)
    /// An entry point names a state inside a dispatch branch.
    public static let entryPointInBranch = Kind(code: .entryPointInBranch)
    /// A chart file breaks its syntax or its format: a syntax error, invalid UTF-8, an
    /// unknown element or attribute, a missing or duplicate one, a bad value, or nesting
    /// deeper than a reader allows (see the FlowchartFiles module).
    public static let malformedFile = Kind(code: .malformedFile)
    /// A chart file, or a file it includes, cannot be read.
    public static let unreadableFile = Kind(code: .unreadableFile)
    /// A chart file includes itself, directly or through other files.
    public static let includeCycle = Kind(code: .includeCycle)
    /// A chart file names a handler that no registry entry binds.
    public static let unboundName = Kind(code: .unboundName)
    /// A chart file names a handler registered as another kind, such as a condition used as
    /// an action.
    public static let mismatchedHandler = Kind(code: .mismatchedHandler)
    /// A declared outcome names a state that is not a final state of the top level, or a
    /// decision that state cannot make, or a way to end that an earlier outcome maps.
    public static let invalidOutcome = Kind(code: .invalidOutcome)
    /// A way the run can end has no outcome, and the chart's outcomes must map every end.
    public static let missingOutcome = Kind(code: .missingOutcome)
    /// A ``Branch`` waits for a name that no branch of its dispatch has, or that several
    /// have.
    public static let unknownPrerequisite = Kind(code: .unknownPrerequisite)
    /// Branches of a dispatch wait for each other in a cycle, so none of them could start.
    public static let prerequisiteCycle = Kind(code: .prerequisiteCycle)
    /// A ``Dispatch`` option is out of range, such as a `maxConcurrency` below 1.
    public static let invalidDispatchOption = Kind(code: .invalidDispatchOption)
    /// A state's modifiers cannot apply: a modifier on a dispatch, a second timeout or
    /// retry, a timeout of zero or less, a negative retry count, a backoff with a negative
    /// delay, a timeout or delay longer than 1,000,000,000 seconds, an exponential
    /// multiplier that is not a finite number of 1 or more (see
    /// ``FlowComponent/timeout(_:fileID:line:)`` and ``Backoff``).
    public static let invalidModifier = Kind(code: .invalidModifier)
    /// A ``Map`` option is out of range: a `maxConcurrency` below 1 or a negative
    /// `toleratedFailures`, as for a ``Dispatch``.
    public static let invalidMapOption = Kind(code: .invalidMapOption)
    /// A ``Delay`` cannot wait as written: a negative duration, one longer than
    /// 1,000,000,000 seconds, or a timeout on it (a delay waits for its own time).
    public static let invalidDelay = Kind(code: .invalidDelay)

    /// The kind in words, such as `unknown name`.
    public var description: String { code.rawValue }
  }

  /// Every problem found, ordered by file and line.
  public let problems: [Problem]
  /// Where the chart itself was declared.
  public let location: SourceLocation

  /// The most problems ``description`` lists (and the `flowchart` tool prints): a chart
  /// with more is summed up in a last line. ``problems`` always holds every one.
  package static let describedProblemLimit = 100

  /// A summary line, then one line per problem: the first 100, then a line that counts the
  /// others (``problems`` holds them all).
  public var description: String {
    let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
    var lines = ["The flowchart declared at \(location) has \(count):"]
    lines += problems.prefix(Self.describedProblemLimit).map { "  \($0)" }
    if let more = Self.moreProblems(problems.count) { lines.append("  \(more)") }
    return lines.joined(separator: "\n")
  }

  /// The line that stands for the problems past ``describedProblemLimit`` among `count`, or
  /// `nil` when there are none: `… and 3 more problems.`
  package static func moreProblems(_ count: Int) -> String? {
    let more = count - describedProblemLimit
    guard more > 0 else { return nil }
    return "… and \(more) more problem\(more == 1 ? "" : "s")."
  }
}
