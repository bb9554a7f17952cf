// How the compiler's findings are worded: `DSLWording` turns each `Compiler.Finding` into
// the sentence a `DefinitionError` shows, in the words of a `DeclarationVocabulary` (the
// Swift DSL's by default, a chart file's when FlowchartFiles compiles one). The one place
// where compiler messages are written.

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

    case .invalidModifier(let state, let problem), .invalidMapOption(let state, let problem),
      .invalidDelay(let state, let problem):
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
