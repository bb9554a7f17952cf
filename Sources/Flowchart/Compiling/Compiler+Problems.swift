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
        .invalidMapOption(let state, _):
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
        .invalidMapOption(let state, _):
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

/// Words findings the way a Swift author declared the chart: `Action 'Fetch'`,
/// `isFinal: true`, `GoTo`, `Case`. The one place where compiler messages are written.
struct DSLWording {
  /// The words of the declaration's syntax; the DSL's unless a front end gives its own.
  var vocabulary = DeclarationVocabulary.swift

  func message(for finding: Compiler.Finding) -> String {
    let fileID = finding.location.fileID
    let word = { (term: DeclarationVocabulary.Term) in vocabulary(term, in: fileID) }
    switch finding {
    case .emptyChart:
      return
        "The chart declares no states. Declare at least one state, such as \(word(.finalStateExample))."

    case .invalidName(let state, let issue):
      switch issue {
      case .empty:
        return
          "A state has an empty name. Give every state a name: it labels the printed tree, errors and results."
      case .lineBreak:
        return
          "\(describe(state)) has a line break in its name. Keep names on one line so the printed tree stays readable."
      case .controlCharacter:
        return
          "\(describe(state)) has a control character in its name. Remove it: names are printed in trees, errors and results, where control characters (such as NUL or a terminal escape) garble the output."
      case .onlyWhitespace:
        return
          "\(describe(state)) has a name of only whitespace. Give it a name that can be read: it labels the printed tree, errors and results."
      }

    case .invalidBranchName(let dispatch, let number, let name, _, let issue):
      let branch = "Branch \(number) of \(describe(dispatch))"
      switch issue {
      case .empty:
        return
          "\(branch) has an empty name. Give it a name, or \(word(.unnamedBranch))."
      case .lineBreak:
        return
          "\(branch) has a line break in its name, \(quoted(name)). Keep names on one line so the printed tree stays readable."
      case .controlCharacter:
        return
          "\(branch) has a control character in its name, \(quoted(name)). Remove it: names are printed in trees and errors."
      case .onlyWhitespace:
        return
          "\(branch) has a name of only whitespace, \(quoted(name)). Give it a name that can be read, or declare it without one."
      }

    case .unknownName(let referrer, let name, _, let suggestion):
      let hint = suggestion.map { " (did you mean \(quoted($0))?)" } ?? ""
      return
        "\(describe(referrer, word).capitalizedFirst) \(quoted(name)) refers to no state. Declare a state named \(quoted(name)), or use one of the declared names\(hint)."

    case .ambiguousName(let referrer, let name, _, let lines):
      let list = lines.map(String.init).joined(separator: ", ")
      return
        "\(describe(referrer, word).capitalizedFirst) \(quoted(name)) is ambiguous: \(counted(lines.count, "state")) have that name (declared at lines \(list)). Rename them so the reference names one state."

    case .missingExits(let state, let needsKeys):
      let advice =
        needsKeys
        ? "Declare a \(word(.caseExit)) for each key it can decide (and a \(word(.defaultExit)) if you like), or declare it final (\(word(.finalFlag)))."
        : "Give it \(word(.conditionExits)), or declare it final (\(word(.finalFlag))) if the run ends with its decision."
      return "\(describe(state)) has no exits. \(advice)"

    case .lastStateNotFinal(let state, let flow):
      let advice =
        if case .topLevel = flow {
          "Add a state or a \(word(.goTo)) after it, or declare it final (\(word(.finalFlag)))."
        } else {
          "A branch ends at a final state: declare it final (\(word(.finalFlag))), or add a state or a \(word(.goTo)) after it."
        }
      return
        "\(describe(state)) is the last state of \(describe(flow)) and is not final, so the flow has nowhere to go after it. \(advice)"

    case .emptyExit(let state, let exit, let flow):
      return
        "The \(DisplayText.quoted(text: exit)) exit of \(describe(state)) leads nowhere: its block is empty and nothing follows it in \(describe(flow)). Put a state or a \(word(.goTo)) in that exit, or add a state after it."

    case .duplicateKey(let state, let key, _, let firstLine, let sameTextOnly):
      if sameTextOnly, let key {
        return
          "\(describe(state)) has two keys that print as \(DisplayText.quoted(text: key)) (first at line \(firstLine)), so no tree or message could tell their exits apart. Give the keys different descriptions, or keep one exit."
      }
      let what = key.map { "key \(DisplayText.quoted(text: $0))" } ?? "a \(word(.defaultExit))"
      return
        "\(describe(state)) has \(what) twice (first at line \(firstLine)). Keep one exit for it."

    case .missingCases(let state, let cases):
      let cases = cases.joined(separator: ", ")
      return
        "\(describe(state)) has no exit for \(cases). Add a \(word(.caseExit)) for each, or a \(word(.defaultExit))."

    case .finalWithExits(let state, let keyed):
      // A condition may declare one block or both: "exits" is true of either.
      let exits = keyed ? "keyed exits" : "exits"
      return
        "\(describe(state)) is final but declares \(exits), which could never be taken. Remove \(word(.finalFlag)), or remove the exits."

    case .emptyDispatch(let state):
      return
        "\(describe(state)) has no branches. Declare at least one \(word(.branch)), or use \(article(word(.action))) \(word(.action)) instead."

    case .unknownPrerequisite(
      let dispatch, let number, let branch, let name, _, let matches,
      let suggestion):
      let waiting = branch.map { "Branch \(number) (\(quoted($0)))" } ?? "Branch \(number)"
      if matches > 1 {
        return
          "\(waiting) of \(describe(dispatch)) waits for \(quoted(name)), which \(matches) of its branches are named. Rename them so the prerequisite names one branch."
      }
      let hint = suggestion.map { " (did you mean \(quoted($0))?)" } ?? ""
      return
        "\(waiting) of \(describe(dispatch)) waits for \(quoted(name)), which names no branch of that dispatch. Name a branch \(quoted(name)), or wait for one of its named branches\(hint)."

    case .prerequisiteCycle(let dispatch, let branches, _):
      let loop = (branches + [branches[0]]).map { quoted($0) }.joined(separator: " → ")
      let subject =
        branches.count == 1
        ? "Branch \(quoted(branches[0])) of \(describe(dispatch)) waits for itself"
        : "Branches of \(describe(dispatch)) wait for each other in a cycle, \(loop)"
      return
        "\(subject), so none of them could start. Remove one of the prerequisites."

    case .invalidMaxConcurrency(let state, let value):
      return
        "\(describe(state)) has a maxConcurrency of \(value), which would never start a branch. Give it 1 or more, or leave it out to run every branch at once."

    case .invalidJoinPolicy(let state, let policy, let problem):
      return "\(describe(state)) has the join policy \(policy), \(problem)."

    case .emptyBranch(let dispatch, let number, let name, _):
      let branch = name.map { "Branch \(number) (\(quoted($0)))" } ?? "Branch \(number)"
      return
        "\(branch) of \(describe(dispatch)) is empty. Give it at least one state, ending at a final one."

    case .crossesBranchBoundary(let name, _, let from, let to, let fromStart):
      let advice =
        fromStart
        ? "start the chart at a top-level state, such as the dispatch."
        : "move the state into the same flow, or end the branch with a final state and continue after the dispatch."
      return
        "\(word(.goTo).capitalizedFirst) \(quoted(name)) in \(describe(from)) leads to a state in \(describe(to)). Arrows cannot cross a dispatch branch's boundary: \(advice)"

    case .invalidModifier(let state, let problem), .invalidMapOption(let state, let problem):
      return "\(describe(state)) \(problem)"

    case .catchCrossesBranchBoundary(let state, let name, _, let from, let to):
      return
        "The catch route of \(describe(state)) in \(describe(from)) leads to \(quoted(name)), a state in \(describe(to)). Arrows cannot cross a dispatch branch's boundary: catch into a state of the same flow, or end the branch with a final state and handle the failure after the dispatch (with a join policy that tolerates it)."

    case .entryPointInBranch(let name, _, let flow):
      return
        "Entry point \(quoted(name)) is inside \(describe(flow)). A run can only start at a top-level state: name the dispatch instead."

    case .unreachable(let state, let followers):
      let tail = followers > 0 ? " (nor can the \(counted(followers, "state")) it leads to)" : ""
      return
        "\(describe(state)) can never be reached from the start\(tail). Reach it with a \(word(.goTo)), \(word(.entryPointList)) if runs start there, or remove it."

    case .unreachableGoTo(let name, _, let precedent):
      let after =
        switch precedent {
        case .finalState(let state): "it follows final \(describe(state)), which ends its flow"
        case .goTo(let other): "it follows \(word(.goTo)) \(quoted(other)), which already left"
        }
      return
        "\(word(.goTo).capitalizedFirst) \(quoted(name)) can never be taken: \(after). Remove it, or move it where a flow reaches it."

    case .neverReachesFinalState(let states, let total, let flow):
      let names = states.map { quoted($0.name) }.joined(separator: ", ")
      let more = total > states.count ? " and \(total - states.count) more" : ""
      let isOne = total == 1
      let looping =
        "\(isOne ? "state" : "states") \(names)\(more) \(isOne ? "loops" : "loop")"
      let subject =
        if case .topLevel = flow {
          looping.capitalizedFirst
        } else {
          "\(describe(flow).capitalizedFirst) can never end: \(looping)"
        }
      return
        "\(subject) forever: no path from \(isOne ? "it" : "them") reaches a final state. Give the loop an exit that leads to a final state, or declare a state in it final (\(word(.finalFlag)))."
    }
  }

  /// `Action 'Fetch'`, `Multiple condition 'Plan?'`, …
  private func describe(_ state: Compiler.StateFacts) -> String {
    "\(state.kind.description.capitalizedFirst) \(quoted(state.name))"
  }

  /// `the top level`, `branch 2 of dispatch 'Download'`,
  /// `branch 2 ('Feed') of dispatch 'Download'`.
  private func describe(_ flow: Compiler.FlowFacts) -> String {
    switch flow {
    case .topLevel:
      "the top level"
    case .branch(let number, let name, let dispatch):
      "branch \(number)\(name.map { " (\(quoted($0)))" } ?? "") of dispatch \(quoted(dispatch))"
    }
  }

  private func describe(
    _ referrer: Compiler.Referrer, _ word: (DeclarationVocabulary.Term) -> String
  ) -> String {
    switch referrer {
    case .goTo: word(.goTo)
    case .entryPoint: "Entry point"
    case .catchRoute: "Catch route"
    }
  }

  /// `a` or `an`, for the word that follows, by its first letter: `an Action`,
  /// `an <action>`, `a branch`.
  private func article(_ word: String) -> String {
    word.first(where: \.isLetter).map { "AEIOUaeiou".contains($0) } == true ? "an" : "a"
  }
}

/// A state's or a reference's name as a message shows it, by the printed tree's rule (see
/// ``DisplayText/quoted(name:)``): `'Fetch'`, or a string literal with escapes when the name
/// would not read one way.
func quoted(_ name: String) -> String {
  DisplayText.quoted(name: name)
}

/// What is wrong with `name`, if anything, and whether it is ASCII. Reads bytes, and only
/// looks at scalars, which is slower, when the name is not ASCII.
func checkName(_ name: String) -> (issue: Compiler.NameIssue?, isASCII: Bool) {
  var name = name
  // The common case in two simple scans, which the optimizer vectorizes: printable ASCII,
  // and not only spaces.
  let isPlain = name.withUTF8 { bytes in
    bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && bytes.contains { $0 != 0x20 }
  }
  if isPlain { return (nil, true) }
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

/// Finds the declared name closest to an unknown one, within a budget of work shared by
/// every suggestion of one compile: a suggestion is a courtesy, and must not make
/// compiling a chart with many bad references, or very long names, slow. `package`, so that
/// front ends (FlowchartFiles' readers, the tool's `--decide`) suggest with the same rule.
package struct Suggester {
  /// How many cells of edit-distance tables all suggestions may fill together: a few
  /// milliseconds' work.
  static var budget: Int { 4_000_000 }
  /// How many unknown names may get a suggestion.
  static var suggestions: Int { 20 }

  private(set) var cellsLeft = Suggester.budget
  private(set) var suggestionsLeft = Suggester.suggestions

  /// A suggester with the whole budget.
  package init() {}

  /// The name of `names` closest to `name` by edit distance, ignoring case, if it is close
  /// enough to be a likely typo and the budget allows looking.
  package mutating func closestName(
    to name: String, in names: some Collection<String>
  ) -> (name: String, offset: Int)? {
    guard suggestionsLeft > 0, cellsLeft > 0, names.count <= 10_000 else { return nil }
    suggestionsLeft -= 1
    let target = Array(name.lowercased())
    let limit = max(2, target.count / 3)
    var best: (name: String, offset: Int, distance: Int)?
    var previous: [Int] = []
    var current: [Int] = []
    for (offset, candidate) in names.enumerated() {
      // Counting characters costs a step per byte, charged to the budget; a length that
      // differs by more than the limit cannot be within it.
      cellsLeft -= candidate.utf8.count
      if cellsLeft <= 0 { break }
      let length = candidate.count
      if abs(length - target.count) > limit { continue }
      let other = Array(candidate.lowercased())
      let cells = (target.count + 1) * (2 * limit + 1)
      guard cellsLeft >= cells else {
        cellsLeft = 0
        break
      }
      guard
        let distance = boundedEditDistance(
          target, other, limit: min(limit, best?.distance ?? limit), previous: &previous,
          current: &current)
      else { continue }
      if distance < best?.distance ?? .max
        || (distance == best?.distance && candidate < best!.name)
      {
        best = (candidate, offset, distance)
      }
    }
    return best.map { ($0.name, $0.offset) }
  }

  /// The edit distance between `a` and `b` if it is at most `limit`, else `nil`: fills
  /// only the band of cells within `limit` of the diagonal, and stops at a row whose every
  /// cell exceeds it.
  private mutating func boundedEditDistance(
    _ a: [Character], _ b: [Character], limit: Int, previous: inout [Int], current: inout [Int]
  ) -> Int? {
    if abs(a.count - b.count) > limit { return nil }
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    let outside = limit + 1
    previous = Array(0...b.count).map { min($0, outside) }
    current = [Int](repeating: outside, count: b.count + 1)
    for i in 1...a.count {
      let low = max(1, i - limit)
      let high = min(b.count, i + limit)
      current[0] = min(i, outside)
      if low > 1 { current[low - 1] = outside }
      var rowMinimum = current[0]
      if low <= high {
        for j in low...high {
          let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
          let value = min(previous[j] + 1, current[j - 1] + 1, substitution, outside)
          current[j] = value
          rowMinimum = min(rowMinimum, value)
        }
        cellsLeft -= high - low + 1
      }
      if high < b.count { current[high + 1] = outside }
      if rowMinimum > limit { return nil }
      swap(&previous, &current)
    }
    let distance = previous[b.count]
    return distance <= limit ? distance : nil
  }
}
