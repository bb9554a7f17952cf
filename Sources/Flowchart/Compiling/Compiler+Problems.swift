// A definition's problems as facts: the `Finding`s the compiler's passes record (what is
// wrong, with the states, names, lines and counts involved, without words), and the check
// of a name. `DSLWording.swift` words them as sentences; `Suggester.swift` finds the name
// an unknown one was probably meant to be.

extension Compiler {
  /// A state as a problem sees it: what it is, its name and where it was declared.
  struct StateFacts {
    var kind: StateKind
    var name: String
    var location: SourceLocation
  }

  /// The flow a problem happens in: the top level, or a branch of a dispatch.
  enum FlowFacts {
    case topLevel
    /// The branch numbered `number` from 1, with its name if it has one, of the dispatch
    /// named `dispatch`.
    case branch(number: Int, name: String?, dispatch: String)
  }

  /// What refers to a state by name.
  enum Referrer {
    case goTo
    case entryPoint
    /// A state's catch route (see `Declaring/Modifiers.swift`).
    case catchRoute
  }

  /// What is wrong with a name.
  enum NameIssue {
    case empty
    case lineBreak
    case controlCharacter
    case onlyWhitespace
  }

  /// What comes right before a `GoTo` that no arrow can take.
  enum Precedent {
    /// A final state, which ends its flow.
    case finalState(StateFacts)
    /// Another `GoTo`, which already left.
    case goTo(name: String)
  }

  /// One problem of a declaration, as facts: what is wrong, and the states, names, lines
  /// and counts involved, without words.
  ///
  /// The passes record findings; ``DSLWording`` alone turns them into sentences, in the
  /// words of the Swift DSL. A front end that reads charts from elsewhere words the same
  /// findings its own way.
  enum Finding {
    case emptyChart(chart: SourceLocation)
    case invalidName(StateFacts, NameIssue)
    case invalidBranchName(
      dispatch: StateFacts, number: Int, name: String, location: SourceLocation, NameIssue)
    case unknownName(Referrer, name: String, location: SourceLocation, suggestion: String?)
    case ambiguousName(Referrer, name: String, location: SourceLocation, lines: [Int])
    /// A non-final condition (`needsKeys` false) or multiple condition without exits.
    case missingExits(StateFacts, needsKeys: Bool)
    /// The last state of a flow is not final.
    case lastStateNotFinal(StateFacts, flow: FlowFacts)
    /// An exit, labelled `exit`, whose block is empty with nothing after it.
    case emptyExit(StateFacts, exit: String, flow: FlowFacts)
    /// `key` is `nil` for a second `Default`.
    /// `sameTextOnly`: the keys differ but print the same text (see ``DisplayText``).
    case duplicateKey(
      StateFacts, key: String?, location: SourceLocation, firstLine: Int, sameTextOnly: Bool)
    case missingCases(StateFacts, cases: [String])
    /// `keyed` for a multiple condition's keyed exits, otherwise a condition's branches.
    case finalWithExits(StateFacts, keyed: Bool)
    case emptyDispatch(StateFacts)
    case emptyBranch(dispatch: StateFacts, number: Int, name: String?, location: SourceLocation)
    /// `fromStart` when the arrow is the chart's first declaration.
    case crossesBranchBoundary(
      name: String, location: SourceLocation, from: FlowFacts, to: FlowFacts, fromStart: Bool)
    case entryPointInBranch(name: String, chart: SourceLocation, flow: FlowFacts)
    /// A state nothing leads to, and how many states only it leads to.
    case unreachable(StateFacts, followers: Int)
    case unreachableGoTo(name: String, location: SourceLocation, after: Precedent)
    /// The states of a loop with no way out, in declaration order (at most
    /// ``Compiler/loopStatesNamed``), and how many it has in all.
    case neverReachesFinalState(states: [StateFacts], count: Int, flow: FlowFacts)
    /// Branch `number` (from 1) of `dispatch` waits for `name`, which `matches` branches
    /// have (none, or several).
    case unknownPrerequisite(
      dispatch: StateFacts, number: Int, branch: String?, name: String,
      location: SourceLocation, matches: Int, suggestion: String?)
    /// Branches that wait for each other, in the order they wait, starting at the earliest
    /// declared one, which `location` is.
    case prerequisiteCycle(dispatch: StateFacts, branches: [String], location: SourceLocation)
    case invalidMaxConcurrency(StateFacts, value: Int)
    /// The dispatch's join policy cannot apply to its branches; `problem` ends the sentence.
    case invalidJoinPolicy(StateFacts, policy: JoinPolicy, problem: String)
    /// A state's modifiers cannot apply as written; `problem` ends a sentence about it.
    case invalidModifier(StateFacts, problem: String)
    /// A map's option is out of range; `problem` ends a sentence about it.
    case invalidMapOption(StateFacts, problem: String)
    /// A delay cannot wait as written; `problem` ends a sentence about it.
    case invalidDelay(StateFacts, problem: String)
    /// A catch route of `state`, written at `location`, leads to `name` in another flow.
    case catchCrossesBranchBoundary(
      StateFacts, name: String, location: SourceLocation, from: FlowFacts, to: FlowFacts)

    /// The problem's kind.
    var kind: DefinitionError.Kind {
      switch self {
      case .emptyChart: .emptyChart
      case .invalidName, .invalidBranchName: .invalidName
      case .unknownName: .unknownName
      case .ambiguousName: .ambiguousName
      case .missingExits: .missingExits
      case .lastStateNotFinal, .emptyExit: .exitLeadsNowhere
      case .duplicateKey: .duplicateKey
      case .missingCases: .missingCase
      case .finalWithExits: .finalStateWithExits
      case .emptyDispatch: .emptyDispatch
      case .emptyBranch: .emptyBranch
      case .crossesBranchBoundary: .crossesBranchBoundary
      case .entryPointInBranch: .entryPointInBranch
      case .unreachable: .unreachable
      case .unreachableGoTo: .unreachableGoTo
      case .neverReachesFinalState: .neverReachesFinalState
      case .unknownPrerequisite: .unknownPrerequisite
      case .prerequisiteCycle: .prerequisiteCycle
      case .invalidMaxConcurrency, .invalidJoinPolicy: .invalidDispatchOption
      case .invalidModifier: .invalidModifier
      case .invalidMapOption: .invalidMapOption
      case .invalidDelay: .invalidDelay
      case .catchCrossesBranchBoundary: .crossesBranchBoundary
      }
    }

    /// The name the problem is about: a state's, a referenced one, or `nil` for the chart.
    var name: String? {
      switch self {
      case .emptyChart: nil
      case .invalidName(let state, _), .missingExits(let state, _),
        .lastStateNotFinal(let state, _), .emptyExit(let state, _, _),
        .duplicateKey(let state, _, _, _, _), .missingCases(let state, _),
        .finalWithExits(let state, _), .emptyDispatch(let state),
        .unreachable(let state, _), .invalidMaxConcurrency(let state, _),
        .invalidJoinPolicy(let state, _, _), .invalidModifier(let state, _),
        .invalidMapOption(let state, _), .invalidDelay(let state, _):
        state.name
      case .catchCrossesBranchBoundary(_, let name, _, _, _):
        name
      case .invalidBranchName(let dispatch, _, _, _, _), .emptyBranch(let dispatch, _, _, _),
        .unknownPrerequisite(let dispatch, _, _, _, _, _, _),
        .prerequisiteCycle(let dispatch, _, _):
        dispatch.name
      case .unknownName(_, let name, _, _), .ambiguousName(_, let name, _, _),
        .crossesBranchBoundary(let name, _, _, _, _), .entryPointInBranch(let name, _, _),
        .unreachableGoTo(let name, _, _):
        name
      case .neverReachesFinalState(let states, _, _): states.first?.name
      }
    }

    /// Where the problem points.
    var location: SourceLocation {
      switch self {
      case .emptyChart(let chart), .entryPointInBranch(_, let chart, _): chart
      case .invalidName(let state, _), .missingExits(let state, _),
        .lastStateNotFinal(let state, _), .emptyExit(let state, _, _),
        .missingCases(let state, _), .finalWithExits(let state, _), .emptyDispatch(let state),
        .unreachable(let state, _), .invalidMaxConcurrency(let state, _),
        .invalidJoinPolicy(let state, _, _), .invalidModifier(let state, _),
        .invalidMapOption(let state, _), .invalidDelay(let state, _):
        state.location
      case .catchCrossesBranchBoundary(_, _, let location, _, _):
        location
      case .unknownPrerequisite(_, _, _, _, let location, _, _),
        .prerequisiteCycle(_, _, let location):
        location
      case .invalidBranchName(_, _, _, let location, _), .emptyBranch(_, _, _, let location),
        .unknownName(_, _, let location, _), .ambiguousName(_, _, let location, _),
        .duplicateKey(_, _, let location, _, _), .crossesBranchBoundary(_, let location, _, _, _),
        .unreachableGoTo(_, let location, _):
        location
      case .neverReachesFinalState(let states, _, _):
        states.first?.location ?? SourceLocation(fileID: "", line: 0)
      }
    }

    /// The public problem, worded by `wording`.
    func problem(wording: DSLWording = DSLWording()) -> DefinitionError.Problem {
      DefinitionError.Problem(
        kind: kind, name: name, location: location, message: wording.message(for: self))
    }
  }

  /// How many states of a loop a message names; the rest are counted.
  static var loopStatesNamed: Int { 5 }
}

/// What is wrong with `name`, if anything, and whether it is ASCII. Reads bytes, and only
/// looks at scalars, which is slower, when the name is not ASCII.
func checkName(_ name: String) -> (issue: Compiler.NameIssue?, isASCII: Bool) {
  // The common case in two simple scans, which the optimizer vectorizes: printable ASCII,
  // and not only spaces. Read in place: the `var` copy `withUTF8` needs retained the name.
  let isPlain = name.utf8.withContiguousStorageIfAvailable { bytes in
    bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && bytes.contains { $0 != 0x20 }
  }
  if isPlain == true { return (nil, true) }
  var name = name
  // Line feed, vertical tab, form feed, carriage return.
  let lineBreaks: ClosedRange<UInt8> = 0x0A...0x0D
  let (isASCII, hasLineBreak, hasControl, isBlank) = name.withUTF8 { bytes in
    var hasLineBreak = false
    var hasControl = false
    var isBlank = true
    for byte in bytes {
      if byte >= 0x80 { return (false, false, false, false) }
      if byte < 0x20 || byte == 0x7F {
        if lineBreaks.contains(byte) { hasLineBreak = true } else { hasControl = true }
      }
      if byte != 0x20 && byte != 0x09 && !lineBreaks.contains(byte) { isBlank = false }
    }
    return (true, hasLineBreak, hasControl, isBlank)
  }
  if name.isEmpty { return (.empty, true) }
  if isASCII {
    let issue: Compiler.NameIssue? =
      hasLineBreak ? .lineBreak : hasControl ? .controlCharacter : isBlank ? .onlyWhitespace : nil
    return (issue, true)
  }
  if name.contains(where: \.isNewline) { return (.lineBreak, false) }
  if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
    return (.controlCharacter, false)
  }
  if name.allSatisfy(\.isWhitespace) { return (.onlyWhitespace, false) }
  return (nil, false)
}
