/// Turns a declaration into a validated ``Graph``, or collects every problem into one
/// ``DefinitionError``.
///
/// The compiler works in passes, each linear in the size of the declaration and none
/// recursive, so a chart of any size or nesting compiles without growing the stack:
/// 1. *Number*: walk the blocks with an explicit stack, give each state an index, and note
///    each exit as a ``Target`` (a state, a name to resolve, or the end of the flow).
/// 2. *Resolve*: look names up once, check that every `GoTo` names one state, that arrows
///    stay inside their flow and that every exit of a non-final state leads somewhere.
/// 3. *Check the graph*: every state reachable from the start or an entry point, every
///    state able to reach a final state.
/// 4. *Emit*: the flat node array the runtime walks.
struct Compiler<Context: Sendable> {
  /// Where an exit leads, before names are resolved.
  enum Target {
    case state(Int32)
    case name(String, SourceLocation)
    /// Past the last state of a flow.
    case end
  }

  /// A declared exit of a state, before resolution.
  struct PendingExit {
    var label: Exit.Label
    var target: Target
  }

  /// A state numbered in pass 1, with what pass 4 needs to emit it.
  struct PendingState {
    var declaration: StateDeclaration<Context>
    var flow: Int32
    var exits: [PendingExit] = []
    /// For a dispatch: the flows of its branches, for messages.
    var branchFlows: [Int32] = []
  }

  /// A block waiting to be walked in pass 1.
  struct PendingBlock {
    var declarations: [Declaration<Context>]
    /// The index of each state declaration, `nil` for a `GoTo`.
    var ids: [Int32?]
    var continuation: Target
    var flow: Int32
  }

  /// What a flow is, for messages: the top level, or a branch of a dispatch.
  struct FlowOwner {
    var dispatch: Int32?
    var branch: Int
  }

  private let requestedEntryPoints: [String]
  private let location: SourceLocation
  private var states: [PendingState] = []
  private var stack: [PendingBlock] = []
  private var flows: [FlowOwner] = [FlowOwner(dispatch: nil, branch: 0)]
  private var problems: [DefinitionError.Problem] = []
  /// Every `GoTo` of the walked blocks, so that names are checked even where no arrow
  /// takes the `GoTo` (after a final state or another `GoTo`).
  private var goTos: [(name: String, location: SourceLocation)] = []

  init(entryPoints: [String], location: SourceLocation) {
    requestedEntryPoints = entryPoints
    self.location = location
  }

  mutating func compile(_ declarations: [Declaration<Context>]) throws(DefinitionError) -> Graph<
    Context
  > {
    // Pass 1: number the states.
    let startTarget = push(declarations, continuation: .end, flow: 0)
    while let block = stack.popLast() {
      walk(block)
    }
    if states.isEmpty {
      report(
        .emptyChart, nil, location,
        "The chart declares no states. Declare at least one state, such as Action(\"Done\", isFinal: true)."
      )
      throw DefinitionError(problems: problems, location: location)
    }

    // Pass 2: resolve names and check each exit.
    let statesByName = Dictionary(grouping: states.indices.map { Int32($0) }) {
      states[Int($0)].declaration.name
    }
    var resolver = Resolver(statesByName: statesByName)
    var exits: [[(label: Exit.Label, target: Int32?)]] = []
    exits.reserveCapacity(states.count)
    for index in states.indices {
      exits.append(resolveExits(of: index, with: &resolver))
    }
    let start = resolveStart(startTarget, with: &resolver)
    let entryPoints = resolveEntryPoints(with: &resolver)
    for goTo in goTos {
      _ = resolveName(goTo.name, at: goTo.location, what: "GoTo", with: &resolver)
    }

    // Pass 3: check the graph as a whole.
    // Without a start every state would be reported unreachable: the start's own problem
    // says enough.
    if let start {
      checkReachability(exits: exits, roots: [start] + entryPoints)
    }
    checkFinalStatesAreReachable(exits: exits)

    guard problems.isEmpty, let start else {
      let sorted = problems.enumerated().sorted {
        ($0.element.location.fileID, $0.element.location.line, $0.offset)
          < ($1.element.location.fileID, $1.element.location.line, $1.offset)
      }
      throw DefinitionError(problems: sorted.map(\.element), location: location)
    }

    // Pass 4: emit.
    return emit(exits: exits, start: start, entryPoints: entryPoints, statesByName: statesByName)
  }

  // MARK: - Pass 1

  /// Numbers the states of a block, schedules it for walking and returns its entry.
  private mutating func push(
    _ declarations: [Declaration<Context>], continuation: Target, flow: Int32
  ) -> Target {
    var ids: [Int32?] = []
    ids.reserveCapacity(declarations.count)
    for declaration in declarations {
      switch declaration.node {
      case .state(let state):
        ids.append(Int32(states.count))
        states.append(PendingState(declaration: state, flow: flow))
      case .goTo:
        ids.append(nil)
      }
    }
    stack.append(
      PendingBlock(declarations: declarations, ids: ids, continuation: continuation, flow: flow))
    return target(of: declarations.indices.first, in: declarations, ids: ids, or: continuation)
  }

  private func target(
    of index: Int?, in declarations: [Declaration<Context>], ids: [Int32?], or continuation: Target
  ) -> Target {
    guard let index else { return continuation }
    switch declarations[index].node {
    case .state: return .state(ids[index]!)
    case .goTo(let name, let location): return .name(name, location)
    }
  }

  /// Records the exits of each state of a block and schedules its nested blocks.
  private mutating func walk(_ block: PendingBlock) {
    for (position, declaration) in block.declarations.enumerated() {
      guard case .state(let state) = declaration.node, let id = block.ids[position] else {
        if case .goTo(let name, let location) = declaration.node {
          goTos.append((name, location))
        }
        continue
      }
      let following = position + 1 < block.declarations.count ? position + 1 : nil
      let next = target(
        of: following, in: block.declarations, ids: block.ids, or: block.continuation)
      checkName(state)
      states[Int(id)].exits = exits(of: state, id: id, next: next, flow: block.flow)
    }
  }

  private mutating func checkName(_ state: StateDeclaration<Context>) {
    if state.name.isEmpty {
      report(
        .invalidName, state.name, state.location,
        "A state has an empty name. Give every state a name: it labels the printed tree, errors and results."
      )
    } else if state.name.contains(where: \.isNewline) {
      report(
        .invalidName, state.name, state.location,
        "\(describe(state)) has a line break in its name. Keep names on one line so the printed tree stays readable."
      )
    }
  }

  private mutating func exits(
    of state: StateDeclaration<Context>, id: Int32, next: Target, flow: Int32
  ) -> [PendingExit] {
    switch state.body {
    case .action:
      return state.isFinal ? [] : [PendingExit(label: .next, target: next)]

    case .condition(_, let yes, let no, let hasExits):
      if state.isFinal {
        // Even empty branches say the author expected the flow to go on.
        if hasExits { reportFinalWithExits(state, exits: "yes: and no: branches") }
        return []
      }
      guard hasExits else {
        report(
          .missingExits, state.name, state.location,
          "\(describe(state)) has no exits. Give it yes: and no: branches, or declare it final (isFinal: true) if the run ends with its decision."
        )
        return []
      }
      return [
        PendingExit(label: .yes, target: push(yes, continuation: next, flow: flow)),
        PendingExit(label: .no, target: push(no, continuation: next, flow: flow)),
      ]

    case .multipleCondition(let decision, let hasExits):
      if state.isFinal {
        if hasExits { reportFinalWithExits(state, exits: "keyed exits") }
        return []
      }
      guard hasExits, !decision.exits.isEmpty else {
        report(
          .missingExits, state.name, state.location,
          "\(describe(state)) has no exits. Declare a Case for each key it can decide (and a Default if you like), or declare it final (isFinal: true)."
        )
        return []
      }
      for duplicate in decision.duplicateKeys {
        let exit = decision.exits[duplicate.index]
        let first = decision.exits[duplicate.firstIndex]
        let what = exit.label.map { "key \(quoted($0))" } ?? "a Default"
        report(
          .duplicateKey, state.name, exit.location,
          "\(describe(state)) has \(what) twice (first at line \(first.location.line)). Keep one exit for it."
        )
      }
      if !decision.missingCases.isEmpty {
        let cases = decision.missingCases.map { ".\($0)" }.joined(separator: ", ")
        report(
          .missingCase, state.name, state.location,
          "\(describe(state)) has no exit for \(cases). Add a Case for each, or a Default.")
      }
      return decision.exits.map { exit in
        PendingExit(
          label: exit.label.map(Exit.Label.key) ?? .default,
          target: push(exit.body, continuation: next, flow: flow))
      }

    case .dispatch(let branches, _):
      if branches.isEmpty {
        report(
          .emptyDispatch, state.name, state.location,
          "\(describe(state)) has no branches. Declare at least one Branch, or use an Action instead."
        )
      }
      var result: [PendingExit] = []
      for (index, branch) in branches.enumerated() {
        let branchFlow = Int32(flows.count)
        flows.append(FlowOwner(dispatch: id, branch: index))
        states[Int(id)].branchFlows.append(branchFlow)
        if branch.isEmpty {
          report(
            .emptyBranch, state.name, state.location,
            "Branch \(index + 1) of \(describe(state)) is empty. Give it at least one state, ending at a final one."
          )
          continue
        }
        let entry = push(branch, continuation: .end, flow: branchFlow)
        result.append(PendingExit(label: .branch(index), target: entry))
      }
      if !state.isFinal {
        result.append(PendingExit(label: .next, target: next))
      }
      return result
    }
  }

  private mutating func reportFinalWithExits(_ state: StateDeclaration<Context>, exits: String) {
    report(
      .finalStateWithExits, state.name, state.location,
      "\(describe(state)) is final but declares \(exits), which could never be taken. Remove isFinal: true, or remove the exits."
    )
  }

  // MARK: - Pass 2

  /// Looks names up and reports each bad reference once.
  struct Resolver {
    let statesByName: [String: [Int32]]
    /// The references already reported. A `GoTo` that ends several blocks is resolved once
    /// per block; it is told apart from other references by its name and its location, so
    /// that two `GoTo`s written on one line are both reported.
    var reported: Set<Reference> = []
    /// How many more unknown names get a "did you mean" suggestion.
    var suggestionsLeft = 20

    /// A name as referenced at one place.
    struct Reference: Hashable {
      var name: String
      var location: SourceLocation
    }

    enum Outcome {
      case found(Int32)
      case unknown
      case ambiguous([Int32])
    }

    func resolve(_ name: String) -> Outcome {
      guard let matches = statesByName[name] else { return .unknown }
      return matches.count == 1 ? .found(matches[0]) : .ambiguous(matches)
    }
  }

  private mutating func resolveExits(
    of index: Int, with resolver: inout Resolver
  ) -> [(label: Exit.Label, target: Int32?)] {
    let state = states[index]
    return state.exits.map { exit in
      switch exit.target {
      case .state(let target):
        return (exit.label, target)
      case .end:
        reportNowhere(state, exit.label)
        return (exit.label, nil)
      case .name(let name, let location):
        guard let target = resolveName(name, at: location, what: "GoTo", with: &resolver) else {
          return (exit.label, nil)
        }
        // A branch's entry is written inside the branch: a GoTo there belongs to its flow.
        var flow = state.flow
        if case .branch(let branch) = exit.label { flow = state.branchFlows[branch] }
        if states[Int(target)].flow != flow {
          if resolver.reported.insert(Resolver.Reference(name: name, location: location)).inserted {
            report(
              .crossesBranchBoundary, name, location,
              "GoTo \(quoted(name)) in \(describeFlow(flow)) leads to a state in \(describeFlow(states[Int(target)].flow)). Arrows cannot cross a dispatch branch's boundary: move the state into the same flow, or end the branch with a final state and continue after the dispatch."
            )
          }
          return (exit.label, nil)
        }
        return (exit.label, target)
      }
    }
  }

  private mutating func resolveName(
    _ name: String, at location: SourceLocation, what: String, with resolver: inout Resolver
  ) -> Int32? {
    switch resolver.resolve(name) {
    case .found(let target):
      return target
    case .unknown:
      if resolver.reported.insert(Resolver.Reference(name: name, location: location)).inserted {
        // A suggestion compares the name with every declared name: offer it for the first
        // few unknown names only, so that many bad references cannot make compiling slow.
        resolver.suggestionsLeft -= 1
        let suggestion =
          resolver.suggestionsLeft < 0
          ? nil
          : closestName(to: name, in: resolver.statesByName.keys).map {
            " (did you mean \(quoted($0))?)"
          }
        report(
          .unknownName, name, location,
          "\(what) \(quoted(name)) refers to no state. Declare a state named \(quoted(name)), or use one of the declared names\(suggestion ?? "")."
        )
      }
      return nil
    case .ambiguous(let matches):
      if resolver.reported.insert(Resolver.Reference(name: name, location: location)).inserted {
        let lines = matches.map { String(states[Int($0)].declaration.location.line) }
        report(
          .ambiguousName, name, location,
          "\(what) \(quoted(name)) is ambiguous: \(matches.count) states have that name (declared at lines \(lines.joined(separator: ", "))). Rename them so the reference names one state."
        )
      }
      return nil
    }
  }

  private mutating func reportNowhere(_ state: PendingState, _ label: Exit.Label) {
    let declaration = state.declaration
    let place = describeFlow(state.flow)
    let advice =
      state.flow == 0
      ? "Add a state or a GoTo after it, or declare it final (isFinal: true)."
      : "A branch ends at a final state: declare it final (isFinal: true), or add a state or a GoTo after it."
    switch label {
    case .next:
      report(
        .exitLeadsNowhere, declaration.name, declaration.location,
        "\(describe(declaration)) is the last state of \(place) and is not final, so the flow has nowhere to go after it. \(advice)"
      )
    default:
      report(
        .exitLeadsNowhere, declaration.name, declaration.location,
        "The \(quoted("\(label)")) exit of \(describe(declaration)) leads nowhere: its block is empty and nothing follows it in \(place). Put a state or a GoTo in that exit, or add a state after it."
      )
    }
  }

  private mutating func resolveStart(_ target: Target, with resolver: inout Resolver) -> Int32? {
    switch target {
    case .state(let index): return index
    case .end: return nil
    case .name(let name, let location):
      guard let index = resolveName(name, at: location, what: "GoTo", with: &resolver) else {
        return nil
      }
      let flow = states[Int(index)].flow
      guard flow == 0 else {
        if resolver.reported.insert(Resolver.Reference(name: name, location: location)).inserted {
          report(
            .crossesBranchBoundary, name, location,
            "GoTo \(quoted(name)) in the top level leads to a state in \(describeFlow(flow)). Arrows cannot cross a dispatch branch's boundary: start the chart at a top-level state, such as the dispatch."
          )
        }
        return nil
      }
      return index
    }
  }

  private mutating func resolveEntryPoints(with resolver: inout Resolver) -> [Int32] {
    var result: [Int32] = []
    for name in requestedEntryPoints {
      var unique = Resolver(statesByName: resolver.statesByName)
      guard let index = resolveName(name, at: location, what: "Entry point", with: &unique) else {
        continue
      }
      if states[Int(index)].flow != 0 {
        report(
          .entryPointInBranch, name, location,
          "Entry point \(quoted(name)) is inside \(describeFlow(states[Int(index)].flow)). A run can only start at a top-level state: name the dispatch instead."
        )
        continue
      }
      if !result.contains(index) { result.append(index) }
    }
    return result
  }

  // MARK: - Pass 3

  private mutating func checkReachability(
    exits: [[(label: Exit.Label, target: Int32?)]], roots: [Int32]
  ) {
    var reached = [Bool](repeating: false, count: states.count)
    /// Marks what `roots` lead to as reached; returns how many states it newly reached.
    @discardableResult
    func visit(from roots: [Int32]) -> Int {
      var pending = roots
      var count = 0
      while let index = pending.popLast() {
        if reached[Int(index)] { continue }
        reached[Int(index)] = true
        count += 1
        for exit in exits[Int(index)] {
          if let target = exit.target, !reached[Int(target)] { pending.append(target) }
        }
      }
      return count
    }
    visit(from: roots)
    guard reached.contains(false) else { return }

    // Report each unreachable region once, at the state that leads into it.
    var hasUnreachablePredecessor = [Bool](repeating: false, count: states.count)
    for index in states.indices where !reached[index] {
      for exit in exits[index] {
        if let target = exit.target, Int(target) != index {
          hasUnreachablePredecessor[Int(target)] = true
        }
      }
    }
    let candidates =
      states.indices.filter { !reached[$0] && !hasUnreachablePredecessor[$0] }
      + states.indices.filter { !reached[$0] && hasUnreachablePredecessor[$0] }
    for index in candidates where !reached[index] {
      let others = visit(from: [Int32(index)]) - 1
      let state = states[index].declaration
      let tail =
        others > 0 ? " (nor can the \(others) state\(others == 1 ? "" : "s") it leads to)" : ""
      report(
        .unreachable, state.name, state.location,
        "\(describe(state)) can never be reached from the start\(tail). Reach it with a GoTo, list it in entryPoints: if runs start there, or remove it."
      )
    }
  }

  private mutating func checkFinalStatesAreReachable(
    exits: [[(label: Exit.Label, target: Int32?)]]
  ) {
    // Walk arrows backwards from every state whose flow can end there: final states, and
    // states already reported (their broken exits would otherwise be reported twice).
    var predecessors = [[Int32]](repeating: [], count: states.count)
    var escapes = [Bool](repeating: false, count: states.count)
    for index in states.indices {
      if states[index].declaration.isFinal { escapes[index] = true }
      for exit in exits[index] {
        if case .branch = exit.label { continue }
        if let target = exit.target {
          predecessors[Int(target)].append(Int32(index))
        } else {
          escapes[index] = true
        }
      }
      if exits[index].isEmpty { escapes[index] = true }
    }
    var pending = states.indices.filter { escapes[$0] }.map { Int32($0) }
    while let index = pending.popLast() {
      for predecessor in predecessors[Int(index)] where !escapes[Int(predecessor)] {
        escapes[Int(predecessor)] = true
        pending.append(predecessor)
      }
    }
    let trapped = states.indices.filter { !escapes[$0] }
    let byFlow = Dictionary(grouping: trapped) { states[$0].flow }
    for flow in byFlow.keys.sorted() {
      let members = byFlow[flow]!
      let first = states[members[0]].declaration
      let names = members.prefix(5).map { quoted(states[$0].declaration.name) }
      let more = members.count > 5 ? " and \(members.count - 5) more" : ""
      let isOne = members.count == 1
      let looping =
        "\(isOne ? "state" : "states") \(names.joined(separator: ", "))\(more) \(isOne ? "loops" : "loop")"
      let subject =
        flow == 0
        ? looping.capitalizedFirst
        : "\(describeFlow(flow).capitalizedFirst) can never end: \(looping)"
      report(
        .neverReachesFinalState, first.name, first.location,
        "\(subject) forever: no path from \(isOne ? "it" : "them") reaches a final state. Give the loop an exit that leads to a final state, or declare a state in it final (isFinal: true)."
      )
    }
  }

  // MARK: - Pass 4

  private func emit(
    exits: [[(label: Exit.Label, target: Int32?)]], start: Int32, entryPoints: [Int32],
    statesByName: [String: [Int32]]
  ) -> Graph<Context> {
    var compiled: [CompiledState<Context>] = []
    compiled.reserveCapacity(states.count)
    var records: [StateRecord] = []
    records.reserveCapacity(states.count)
    var dispatches: [DispatchPlan<Context>] = []
    for (index, state) in states.enumerated() {
      let declaration = state.declaration
      // Every target is resolved here: unresolved ones were reported and threw above.
      let resolved = exits[index].map { Exit(label: $0.label, target: StateID($0.target!)) }
      let targets = exits[index].map { $0.target! }
      let instruction: Instruction<Context>
      let kind: StateKind
      var isAsynchronous = false
      var next = Node.none
      var alternative = Node.none
      switch declaration.body {
      case .action(let work):
        kind = .action
        instruction = work.map(Self.instruction(for:)) ?? .pass
        isAsynchronous = work?.isAsynchronous ?? false
        next = targets.first ?? Node.none
      case .condition(let work, _, _, _):
        kind = .condition
        instruction = Self.instruction(for: work)
        isAsynchronous = work.isAsynchronous
        if targets.count == 2 {
          next = targets[0]
          alternative = targets[1]
        }
      case .multipleCondition(let decision, _):
        kind = .multipleCondition
        instruction =
          declaration.isFinal ? decision.makeFinalDecision() : decision.makeSelector(targets)
        isAsynchronous = decision.isAsynchronous
      case .dispatch(_, let merge):
        kind = .dispatch
        let branchStarts = exits[index].compactMap { exit -> Int32? in
          if case .branch = exit.label { return exit.target } else { return nil }
        }
        instruction = .dispatch(Int32(dispatches.count))
        dispatches.append(DispatchPlan(branchStarts: branchStarts, merge: merge))
        if !declaration.isFinal, let last = targets.last { next = last }
      }
      compiled.append(
        CompiledState(
          instruction: instruction, next: next, alternative: alternative,
          isFinal: declaration.isFinal))
      records.append(
        StateRecord(
          name: declaration.name, kind: kind, isFinal: declaration.isFinal,
          isAsynchronous: isAsynchronous, location: declaration.location, exits: resolved,
          flow: state.flow))
    }
    let graph = Graph(
      states: compiled, dispatches: dispatches, records: records, start: start,
      entryPoints: entryPoints, statesByName: statesByName)
    #if DEBUG
      graph.checkInvariants()
    #endif
    return graph
  }

  private static func instruction(for work: Work<Context>) -> Instruction<Context> {
    switch work {
    case .action(let perform): .action(perform)
    case .asyncAction(let perform): .asyncAction(perform)
    case .condition(let decide): .condition(decide)
    case .asyncCondition(let decide): .asyncCondition(decide)
    }
  }

  // MARK: - Messages

  private mutating func report(
    _ kind: DefinitionError.Kind, _ name: String?, _ location: SourceLocation, _ message: String
  ) {
    problems.append(
      DefinitionError.Problem(kind: kind, name: name, location: location, message: message))
  }

  private func describe(_ state: StateDeclaration<Context>) -> String {
    let kind: String
    switch state.body {
    case .action: kind = "Action"
    case .condition: kind = "Condition"
    case .multipleCondition: kind = "Multiple condition"
    case .dispatch: kind = "Dispatch"
    }
    return "\(kind) \(quoted(state.name))"
  }

  private func describeFlow(_ flow: Int32) -> String {
    let owner = flows[Int(flow)]
    guard let dispatch = owner.dispatch else { return "the top level" }
    let name = states[Int(dispatch)].declaration.name
    return "branch \(owner.branch + 1) of dispatch \(quoted(name))"
  }
}

/// `name` between single quotes, its line breaks escaped (`\n`, `\u{2028}`), so that each
/// problem stays on one line.
private func quoted(_ name: String) -> String {
  var text = "'"
  for scalar in name.unicodeScalars {
    if Character(scalar).isNewline {
      text += scalar.escaped(asASCII: true)
    } else {
      text.unicodeScalars.append(scalar)
    }
  }
  return text + "'"
}

/// The declared name closest to `name` by edit distance, if it is close enough to be a
/// likely typo. Only runs while reporting an error.
private func closestName(to name: String, in names: Dictionary<String, [Int32]>.Keys) -> String? {
  // A suggestion is a courtesy: skip it where comparing every name would cost too much.
  guard names.count <= 10_000 else { return nil }
  let target = Array(name.lowercased())
  var best: (name: String, distance: Int)?
  for candidate in names {
    let distance = editDistance(target, Array(candidate.lowercased()))
    if distance <= max(2, target.count / 3),
      distance < best?.distance ?? .max
        || (distance == best?.distance && candidate < best!.name)
    {
      best = (candidate, distance)
    }
  }
  return best?.name
}

private func editDistance(_ a: [Character], _ b: [Character]) -> Int {
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
      current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
    }
    swap(&previous, &current)
  }
  return previous[b.count]
}
