// Pass 1: number the states in declaration order, write each one's record, node and exits
// at its place, and schedule the blocks nested in them.

extension Compiler {
  /// Walks every block and numbers its states; returns the chart's start, as a target.
  ///
  /// IDs are given in declaration order (pre-order: a state, then the states of its blocks
  /// in order, then the state after it), while the walk itself goes depth first, last
  /// pushed first, and walks a condition's `no` block before its `yes` block: the builder
  /// allocates a condition's `yes` states, then its `no` states, then the condition
  /// itself, so this order reads memory in the reverse of that order, steadily, where
  /// walking `yes` first jumps back and forth (at 100,000 states, 30 % slower). Each
  /// declaration counts its states and exits when it is built, so a block's first ID and
  /// first exit are known when it is pushed, and each state is written at its ID.
  mutating func number() -> Target {
    var stateCount = 0
    var exitCount = 0
    for declaration in declarations {
      stateCount += Int(declaration.stateCount)
      exitCount += Int(declaration.exitCount)
    }
    guard stateCount > 0 else {
      // Only GoTos: nothing to number, and no start.
      return .end
    }
    let placeholder = PendingState(
      flow: 0, firstExit: 0, nameLength: 0, isFinal: false, isASCII: true)
    states = [PendingState](repeating: placeholder, count: stateCount)
    // Every slot is written by the walk; until then it refers to the first state, which
    // ``declarations`` keeps alive.
    let first = declarations.lazy.compactMap(\.unretainedState).first!
    first._withUnsafeGuaranteedRef { first in
      records = [StateRecord](
        repeating: StateRecord(declaration: first, firstExit: 0, flow: 0), count: stateCount)
    }
    nodes = NodeBuffer(capacity: stateCount)
    let emptyNode = Node(
      kind: .pass, isFinal: true, next: Node.none, alternative: Node.none, code: nil)
    for _ in 0..<stateCount { nodes.append(emptyNode) }
    exits = [StoredExit](
      repeating: StoredExit(label: .next, target: Node.none), count: exitCount)
    exitTargets = [Target](repeating: .broken, count: exitCount)

    let start = push(
      nil, part: 0, continuation: .end, flow: 0, state: 0, exit: 0, fromEnd: false)
    while let block = stack.popLast() {
      walk(block)
    }
    return start
  }

  /// Schedules a block of `owner` (of the top level when `nil`) for walking, and returns
  /// its entry.
  private mutating func push(
    _ owner: StateDeclaration?, part: Int, continuation: Target, flow: Int32, state: Int32,
    exit: Int32, fromEnd: Bool
  ) -> Target {
    let index = Int32(blockEntries.count)
    blockEntries.append(continuation)
    stack.append(
      PendingBlock(
        owner: owner.map(Unmanaged.passUnretained), part: part, index: index,
        continuation: continuation, flow: flow, state: state, exit: exit, fromEnd: fromEnd))
    return .block(index)
  }

  /// Walks the block `block` names.
  private mutating func walk(_ block: PendingBlock) {
    guard let owner = block.owner else {
      walk(declarations, of: block)
      return
    }
    owner._withUnsafeGuaranteedRef { owner in
      switch owner.body {
      case .yesNo(let yes, let no, _):
        // Not `block.part == 0 ? yes : no`, which would copy, and so retain, the array.
        if block.part == 0 {
          walk(yes, of: block)
        } else {
          walk(no, of: block)
        }
      case .keyed(let decision, _):
        walk(decision.exits[block.part].body, of: block)
      case .branches(let branches, _):
        walk(branches[block.part].body, of: block)
      case .next:
        preconditionFailure("a state with one exit has no blocks")
      }
    }
  }

  /// Numbers the states of a block, records each one and its exits, and schedules the
  /// blocks nested in them.
  private mutating func walk(_ declarations: [DeclarationNode], of block: PendingBlock) {
    // What the declaration after the current one starts: its entry.
    var following = block.continuation
    if block.fromEnd {
      var end = block.state
      var endExit = block.exit
      for position in declarations.indices.reversed() {
        guard let state = declarations[position].unretainedState else {
          following = walkGoTo(declarations, at: position)
          continue
        }
        state._withUnsafeGuaranteedRef { state in
          let id = end - state.stateCount
          let firstExit = endExit - state.exitCount
          add(state, id: id, firstExit: firstExit, next: following, flow: block.flow)
          following = .state(id)
          end = id
          endExit = firstExit
        }
      }
    } else {
      var id = block.state
      var firstExit = block.exit
      switch declarations.first {
      case .state: following = .state(id)
      case .goTo: following = .name(Int32(goTos.count))  // The GoTo is walked first.
      case nil: break  // The entry is the continuation.
      }
      for position in declarations.indices {
        guard let state = declarations[position].unretainedState else {
          _ = walkGoTo(declarations, at: position)
          continue
        }
        let next: Target
        switch position + 1 < declarations.count ? declarations[position + 1] : nil {
        case .state: next = .state(id + state._withUnsafeGuaranteedRef(\.stateCount))
        case .goTo: next = .name(Int32(goTos.count))  // The GoTo is walked next.
        case nil: next = block.continuation
        }
        state._withUnsafeGuaranteedRef { state in
          add(state, id: id, firstExit: firstExit, next: next, flow: block.flow)
          id += state.stateCount
          firstExit += state.exitCount
        }
      }
    }
    blockEntries[Int(block.index)] = following
  }

  /// Records the `GoTo` at `position` of `declarations`; returns its target.
  ///
  /// A `GoTo` right after a final state or another `GoTo` can never be taken: it is
  /// reported, and its name is not looked up.
  private mutating func walkGoTo(
    _ declarations: [DeclarationNode], at position: Int
  ) -> Target {
    guard case .goTo(let goTo) = declarations[position] else {
      preconditionFailure("a GoTo")
    }
    let index = Int32(goTos.count)
    goTos.append(Unmanaged.passUnretained(goTo))
    goToNames.append(goTo.name)
    if position > 0, let precedent = precedent(declarations[position - 1]) {
      findings.append(
        .unreachableGoTo(name: goTo.name, location: goTo.location, after: precedent))
      goToTargets.append(Node.none)
    } else {
      goToTargets.append(Self.unresolved)
    }
    return .name(index)
  }

  /// What makes a `GoTo` right after `declaration` impossible to take, if anything: a
  /// final state that declares no exits, or another `GoTo`. (A final state that declares
  /// exits is reported as such; fixing it may well make the `GoTo` reachable.)
  private func precedent(_ declaration: DeclarationNode) -> Precedent? {
    switch declaration {
    case .goTo(let goTo):
      return .goTo(name: goTo.name)
    case .state(let state):
      guard state.isFinal else { return nil }
      switch state.body {
      case .next, .branches:
        return .finalState(facts(state))
      case .yesNo(_, _, let hasExits), .keyed(_, let hasExits):
        return hasExits ? nil : .finalState(facts(state))
      }
    }
  }

  /// Writes the state `state`, numbered `id`, its exits from `firstExit` on, and schedules
  /// its blocks.
  private mutating func add(
    _ state: StateDeclaration, id: Int32, firstExit: Int32, next: Target, flow: Int32
  ) {
    let (issue, isASCII) = checkName(state.name)
    if let issue { findings.append(.invalidName(facts(state), issue)) }
    states[Int(id)] = PendingState(
      flow: flow, firstExit: firstExit, nameLength: UInt16(clamping: state.name.utf8.count),
      isFinal: state.isFinal, isASCII: isASCII)
    record(state, id: id, flow: flow, firstExit: firstExit)
    addExits(of: state, id: id, firstExit: firstExit, next: next, flow: flow)
  }

  /// Writes the state's record and node, from what its declaration says.
  private mutating func record(
    _ state: StateDeclaration, id: Int32, flow: Int32, firstExit: Int32
  ) {
    // The declaration owns its box, and the chart keeps its declarations alive.
    var node = Node(
      kind: state.codeKind, isFinal: state.isFinal, next: Node.none, alternative: Node.none,
      code: state.codeAddress)
    node.waitsForInput = state.kind == .waiting || state.kind == .delay
    // A keyed decision's and a dispatch's code is made in pass 4, once their exits are
    // resolved; until then the node's kind says which loop runs it.
    switch state.body {
    case .next, .yesNo:
      break
    case .keyed(let decision, _):
      unfinished.append(
        Unfinished(
          state: id,
          work: .multipleCondition(
            makeSelector: decision.makeSelector, makeFinalDecision: decision.makeFinalDecision)))
    case .branches(let branches, let behavior):
      let (prerequisites, order) = resolvePrerequisites(
        of: state, branches, behavior: behavior)
      unfinished.append(
        Unfinished(
          state: id,
          work: .dispatch(behavior: behavior, prerequisites: prerequisites, order: order)))
    }
    nodes[Int(id)] = node
    if let modifiers = state.modifiers { note(modifiers, of: state, id: id, flow: flow) }
    if node.kind.isAsynchronous { asynchronousStates.append(id) }
    if state.kind == .subflow { subflowStates.append(id) }
    if state.kind == .map { checkMapOptions(of: state) }
    if state.kind == .delay { checkDelay(state) }
    records[Int(id)] = StateRecord(declaration: state, firstExit: firstExit, flow: flow)
  }

  /// Writes the exits of `state` from `firstExit` on and schedules the blocks they lead
  /// into. The blocks of a state hold its nested states, numbered from `id + 1` on, and
  /// their exits follow the state's own.
  private mutating func addExits(
    of state: StateDeclaration, id: Int32, firstExit: Int32, next: Target, flow: Int32
  ) {
    var position = firstExit
    func setExit(_ label: StoredExit.Label, to target: Target) {
      exits[Int(position)].label = label
      exitTargets[Int(position)] = target
      position += 1
    }
    // Where the state's subtree ends: one after its last nested state and exit.
    let end = id + state.stateCount
    let endExit = firstExit + state.exitCount

    switch state.body {
    case .next:
      if !state.isFinal { setExit(.next, to: next) }

    case .yesNo(_, _, let hasExits):
      if !hasExits {
        if !state.isFinal {
          findings.append(.missingExits(facts(state), needsKeys: false))
          fallbacks.append((id, next, flow))
        }
        return
      }
      let ownExits: Int32 = state.isFinal ? 0 : 2
      // `no` is pushed last, so it is walked first, numbered back from the subtree's end.
      let yesEntry = push(
        state, part: 0, continuation: next, flow: flow, state: id + 1,
        exit: firstExit + ownExits, fromEnd: false)
      let noEntry = push(
        state, part: 1, continuation: next, flow: flow, state: end, exit: endExit,
        fromEnd: true)
      if state.isFinal {
        // Even empty branches say the author expected the flow to go on.
        findings.append(.finalWithExits(facts(state), keyed: false))
        fallbacks.append((id, yesEntry, flow))
        fallbacks.append((id, noEntry, flow))
        return
      }
      setExit(.yes, to: yesEntry)
      setExit(.no, to: noEntry)

    case .keyed(let decision, let hasExits):
      if !hasExits || decision.exits.isEmpty {
        if state.isFinal {
          if hasExits { findings.append(.finalWithExits(facts(state), keyed: true)) }
        } else {
          findings.append(.missingExits(facts(state), needsKeys: true))
          fallbacks.append((id, next, flow))
        }
        return
      }
      if state.isFinal {
        findings.append(.finalWithExits(facts(state), keyed: true))
      } else {
        for duplicate in decision.duplicateKeys {
          let exit = decision.exits[duplicate.index]
          let first = decision.exits[duplicate.firstIndex]
          findings.append(
            .duplicateKey(
              facts(state), key: exit.label, location: exit.location,
              firstLine: first.location.line, sameTextOnly: duplicate.reason == .sameText))
        }
        if !decision.missingCases.isEmpty {
          findings.append(.missingCases(facts(state), cases: decision.missingCases))
        }
      }
      var blockState = id + 1
      var blockExit = firstExit + (state.isFinal ? 0 : Int32(decision.exits.count))
      for (index, exit) in decision.exits.enumerated() {
        let entry = push(
          state, part: index, continuation: next, flow: flow, state: blockState,
          exit: blockExit, fromEnd: false)
        if index + 1 < decision.exits.count {
          let (states, exits) = counts(of: exit.body)
          blockState += states
          blockExit += exits
        }
        if state.isFinal {
          fallbacks.append((id, entry, flow))
          continue
        }
        var label = StoredExit.Label.default
        if let key = exit.label {
          label = .key(Int32(keyLabels.count))
          keyLabels.append(key)
        }
        setExit(label, to: entry)
      }

    case .branches(let branches, _):
      if branches.isEmpty { findings.append(.emptyDispatch(facts(state))) }
      firstBranchFlow[id] = Int32(flows.count)
      var blockState = id + 1
      var blockExit = firstExit + Int32(branches.count) + (state.isFinal ? 0 : 1)
      for (index, branch) in branches.enumerated() {
        let branchFlow = Int32(flows.count)
        flows.append(FlowOwner(dispatch: id, branch: index, name: branch.name))
        if let name = branch.name, let issue = checkName(name).issue {
          findings.append(
            .invalidBranchName(
              dispatch: facts(state), number: index + 1, name: name, location: branch.location,
              issue))
        }
        if branch.body.isEmpty {
          findings.append(
            .emptyBranch(
              dispatch: facts(state), number: index + 1, name: branch.name,
              location: branch.location))
          setExit(.branch(Int32(index)), to: .broken)
          continue
        }
        let entry = push(
          state, part: index, continuation: .end, flow: branchFlow, state: blockState,
          exit: blockExit, fromEnd: false)
        if index + 1 < branches.count {
          let (states, exits) = counts(of: branch.body)
          blockState += states
          blockExit += exits
        }
        setExit(.branch(Int32(index)), to: entry)
      }
      if !state.isFinal {
        setExit(.next, to: next)
      }
    }
    assert(position <= endExit, "a state's own exits come before its blocks'")
  }

  /// How many states and exits the declarations of a block hold.
  private func counts(of block: [DeclarationNode]) -> (states: Int32, exits: Int32) {
    var states: Int32 = 0
    var exits: Int32 = 0
    for declaration in block {
      states += declaration.stateCount
      exits += declaration.exitCount
    }
    return (states, exits)
  }
}
