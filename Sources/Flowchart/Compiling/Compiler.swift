/// Turns a declaration into a validated ``CompiledChart``, or collects every problem into
/// one ``DefinitionError``.
///
/// The compiler is not generic: declarations hold their code already boxed over the chart's
/// context, so it is written once for every context type. It works in passes, each linear
/// in the size of the declaration and none recursive, so a chart of any size or nesting
/// compiles without growing the stack:
/// 1. *Number*: walk the blocks depth first with an explicit stack; number each state as it
///    is walked, write its record and node, and note each exit as a ``Target`` (a state, a
///    block's entry, a name to resolve, or the end of the flow).
/// 2. *Resolve*: look names up once, check that every `GoTo` names one state, that arrows
///    stay inside their flow and that every exit of a non-final state leads somewhere.
/// 3. *Check the graph*: every state reachable from the start or an entry point, every
///    state able to reach a final state.
/// 4. *Emit*: fill in each node's exits, make the multiple conditions' code, which depends
///    on their targets, and plan the dispatches.
///
/// Compiling a large chart is bound by the memory it touches, not by its instructions, so
/// the passes read and write flat arrays front to back, read each declaration once, and do
/// not retain or release declarations while walking them: an atomic reference count on an
/// object that is not in cache waits for memory. The compiled chart keeps the declaration
/// whole, so compiling never releases a declared state either.
@usableFromInline
struct Compiler {
  /// Where an exit leads, before names are resolved.
  ///
  /// A plain value, so that copying one costs no reference counting.
  enum Target {
    case state(Int32)
    /// The entry of the block pushed `n`-th, known once the block is walked: its first
    /// state, the `GoTo` it starts with, or its continuation when it is empty.
    case block(Int32)
    /// The state the `n`-th walked `GoTo` names.
    case name(Int32)
    /// Past the last state of a flow.
    case end
  }

  /// What passes 2 and 3 read of every state, in 12 bytes, so that they never read its
  /// declaration again: compiling a large chart is bound by the memory it touches.
  struct PendingState {
    var flow: Int32
    /// Where the state's exits start in ``Compiler/exits``; they end where the
    /// next state's begin.
    var firstExit: Int32
    var isFinal: Bool
    /// The length of the state's name in UTF-8 bytes, at most `UInt16.max`: looking names
    /// up reads the names of only the states whose length some reference has.
    var nameLength: UInt16
  }

  /// A multiple condition, whose code depends on its targets, or a dispatch, whose plan
  /// does: pass 4 finishes them.
  struct Unfinished {
    enum Work {
      case multipleCondition(
        makeSelector: @Sendable ([Int32]) -> Code, makeFinalDecision: @Sendable () -> Code)
      case dispatch(merge: (any AnyObject & Sendable)?)
    }

    var state: Int32
    var work: Work
  }

  /// A block waiting to be walked in pass 1.
  ///
  /// It names its block by the state that holds it, unretained, rather than holding the
  /// block's array: retaining an array that is not in cache waits for memory, and the
  /// compiler's ``Compiler/declarations`` keeps every declaration alive anyway.
  struct PendingBlock {
    /// The state the block belongs to; `nil` for the top level.
    var owner: Unmanaged<StateDeclaration>?
    /// Which of the owner's blocks: `yes` (0) or `no` (1) of a condition, or the index of
    /// a multiple condition's exit or of a dispatch's branch.
    var part: Int
    /// The block's place in ``Compiler/blockEntries``.
    var index: Int32
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
  /// The declaration being compiled, which the compiled chart keeps.
  private var declarations: [DeclarationNode] = []
  private var states: [PendingState] = []
  /// The output, written in place by `walk` and completed by pass 4.
  private var records: [StateRecord] = []
  private var nodes = NodeBuffer(capacity: 0)
  private var codeBoxes: [any AnyObject & Sendable] = []
  private var asynchronousStates: [Int32] = []
  /// Every state's exits, one state after another: one array for the whole chart rather
  /// than one per state, which becomes the compiled chart's. Pass 2 writes each exit's
  /// target, ``Node/none`` until then and where it leads nowhere.
  private var exits: [StoredExit] = []
  /// Where each exit of ``exits`` leads, as declared.
  private var exitTargets: [Target] = []
  /// The text of the multiple conditions' keys, which ``StoredExit/Label/key(_:)`` refers
  /// to.
  private var keyLabels: [String] = []
  /// The multiple conditions and dispatches, for pass 4.
  private var unfinished: [Unfinished] = []
  /// The first flow of each dispatch's branches, which are numbered one after another.
  private var firstBranchFlow: [Int32: Int32] = [:]
  /// Blocks waiting to be walked, last in, first out: depth first, so a nested block is
  /// walked soon after its parent, while their declarations are still in cache.
  private var stack: [PendingBlock] = []
  /// The entry of each block, set when the block is walked; states are numbered in the
  /// order they are walked, so records, nodes and exits are written front to back.
  private var blockEntries: [Target] = []
  private var flows: [FlowOwner] = [FlowOwner(dispatch: nil, branch: 0)]
  private var problems: [DefinitionError.Problem] = []
  /// Every `GoTo` of the walked blocks, in the order they are walked, unretained (the
  /// declarations own them): ``Target/name`` refers to them by position. Names are checked
  /// even where no arrow takes the `GoTo` (after a final state or another `GoTo`).
  private var goTos: [Unmanaged<GoToDeclaration>] = []
  /// The name of each of ``goTos``, copied when the walk reads it.
  private var goToNames: [String] = []
  /// The state each of ``goTos`` leads to, or ``Node/none`` when its name is not the name
  /// of exactly one state: set in pass 2, once per `GoTo` however many arrows it ends.
  private var goToTargets: [Int32] = []

  @usableFromInline
  init(entryPoints: [String], location: SourceLocation) {
    requestedEntryPoints = entryPoints
    self.location = location
  }

  @usableFromInline
  mutating func compile(
    _ declarations: [DeclarationNode]
  ) throws(DefinitionError) -> CompiledChart {
    self.declarations = declarations
    // Pass 1: number the states, into arrays sized once. For a chart without problems the
    // counts are exact.
    var stateCount = 0
    var exitCount = 0
    for declaration in declarations {
      stateCount += Int(declaration.stateCount)
      exitCount += Int(declaration.exitCount)
    }
    states.reserveCapacity(stateCount)
    records.reserveCapacity(stateCount)
    nodes = NodeBuffer(capacity: stateCount)
    exits.reserveCapacity(exitCount)
    exitTargets.reserveCapacity(exitCount)
    let startTarget = push(nil, part: 0, continuation: .end, flow: 0)
    while let block = stack.popLast() {
      walk(block)
    }
    assert(
      !problems.isEmpty || (states.count == stateCount && exits.count == exitCount),
      "a declaration counts its states and exits as the compiler walks them")
    if states.isEmpty {
      report(
        .emptyChart, nil, location,
        "The chart declares no states. Declare at least one state, such as Action(\"Done\", isFinal: true)."
      )
      throw DefinitionError(problems: problems, location: location)
    }

    // Pass 2: resolve names and check each exit.
    var resolver = Resolver(names: nameTable(), records: records)
    goToTargets = [Int32](repeating: Self.unresolved, count: goTos.count)
    for index in states.indices {
      resolveExits(of: index, with: &resolver)
    }
    let start = resolveStart(startTarget, with: &resolver)
    let entryPoints = resolveEntryPoints(with: &resolver)
    for index in goTos.indices {
      _ = target(ofGoTo: Int32(index), with: &resolver)
    }
    // Free what only pass 1 and 2 need before pass 3 allocates: a large chart's compile
    // then reuses that memory instead of asking the system for more.
    exitTargets = []
    blockEntries = []
    stack = []

    // Pass 3: check the graph as a whole.
    // Without a start every state would be reported unreachable: the start's own problem
    // says enough.
    if let start {
      checkReachability(roots: [start] + entryPoints)
    }
    checkFinalStatesAreReachable()

    guard problems.isEmpty, let start else {
      let sorted = problems.enumerated().sorted {
        ($0.element.location.fileID, $0.element.location.line, $0.offset)
          < ($1.element.location.fileID, $1.element.location.line, $1.offset)
      }
      throw DefinitionError(problems: sorted.map(\.element), location: location)
    }

    // Pass 4: emit.
    return emit(start: start, entryPoints: entryPoints)
  }

  // MARK: - Pass 1

  /// Schedules a block of `owner` (of the top level when `nil`) for walking, and returns
  /// its entry.
  private mutating func push(
    _ owner: StateDeclaration?, part: Int, continuation: Target, flow: Int32
  ) -> Target {
    let index = Int32(blockEntries.count)
    blockEntries.append(continuation)
    stack.append(
      PendingBlock(
        owner: owner.map(Unmanaged.passUnretained), part: part, index: index,
        continuation: continuation, flow: flow))
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
      case .condition(let yes, let no, _):
        // Not `block.part == 0 ? yes : no`, which would copy, and so retain, the array.
        if block.part == 0 {
          walk(yes, of: block)
        } else {
          walk(no, of: block)
        }
      case .multipleCondition(let decision, _):
        walk(decision.exits[block.part].body, of: block)
      case .dispatch(let branches, _):
        walk(branches[block.part], of: block)
      case .action:
        preconditionFailure("an action has no blocks")
      }
    }
  }

  /// Numbers the states of a block, records each one and its exits, and schedules the
  /// blocks nested in them.
  private mutating func walk(_ declarations: [DeclarationNode], of block: PendingBlock) {
    switch declarations.first {
    case .state: blockEntries[Int(block.index)] = .state(Int32(states.count))
    case .goTo: blockEntries[Int(block.index)] = .name(Int32(goTos.count))
    case nil: break  // The entry is the continuation.
    }
    for position in declarations.indices {
      guard let state = declarations[position].unretainedState else {
        if case .goTo(let goTo) = declarations[position] {
          goTos.append(Unmanaged.passUnretained(goTo))
          goToNames.append(goTo.name)
        }
        continue
      }
      let id = Int32(states.count)
      let next: Target
      switch position + 1 < declarations.count ? declarations[position + 1] : nil {
      case .state: next = .state(id + 1)
      case .goTo: next = .name(Int32(goTos.count))  // The GoTo is walked next.
      case nil: next = block.continuation
      }
      state._withUnsafeGuaranteedRef { state in
        checkName(state)
        let firstExit = Int32(exits.count)
        appendExits(of: state, id: id, next: next, flow: block.flow)
        record(state, flow: block.flow, firstExit: firstExit)
      }
    }
  }

  /// Appends the state's pending state, record and node, from what its declaration says.
  private mutating func record(_ state: StateDeclaration, flow: Int32, firstExit: Int32) {
    let id = Int32(states.count)
    states.append(
      PendingState(
        flow: flow, firstExit: firstExit, isFinal: state.isFinal,
        nameLength: UInt16(clamping: state.name.utf8.count)))
    var node = Node(
      kind: state.code, isFinal: state.isFinal, next: Node.none, alternative: Node.none,
      code: nil)
    if state.code != .pass {
      // The declaration is the box; the chart keeps its declarations alive.
      node.code = UnsafeRawPointer(Unmanaged.passUnretained(state).toOpaque())
    }
    switch state.body {
    case .action, .condition:
      break
    case .multipleCondition(let decision, _):
      // A placeholder until pass 4 makes the code.
      node.kind = decision.isAsynchronous ? .asyncSelect : .select
      unfinished.append(
        Unfinished(
          state: id,
          work: .multipleCondition(
            makeSelector: decision.makeSelector, makeFinalDecision: decision.makeFinalDecision)))
    case .dispatch(_, let merge):
      node.kind = .dispatch
      unfinished.append(Unfinished(state: id, work: .dispatch(merge: merge)))
    }
    nodes.append(node)
    // A dispatch has no code of its own to await, though its node needs the async loop.
    if node.kind.suspends, node.kind != .dispatch { asynchronousStates.append(id) }
    records.append(StateRecord(declaration: state, firstExit: firstExit, flow: flow))
  }

  /// Points `node` at `code`'s box, which the chart keeps alive.
  private mutating func attach(_ code: Code, to node: inout Node) {
    node.kind = code.kind
    node.code = UnsafeRawPointer(Unmanaged.passUnretained(code.box).toOpaque())
    codeBoxes.append(code.box)
  }

  private mutating func checkName(_ state: StateDeclaration) {
    if state.name.isEmpty {
      report(
        .invalidName, state.name, state.location,
        "A state has an empty name. Give every state a name: it labels the printed tree, errors and results."
      )
    } else if containsLineBreak(state.name) {
      report(
        .invalidName, state.name, state.location,
        "\(describe(state)) has a line break in its name. Keep names on one line so the printed tree stays readable."
      )
    }
  }

  /// Appends the exits of `state` to ``exits`` and schedules the blocks they lead
  /// into.
  private mutating func appendExits(
    of state: StateDeclaration, id: Int32, next: Target, flow: Int32
  ) {
    switch state.body {
    case .action:
      if !state.isFinal { appendExit(.next, to: next) }

    case .condition(_, _, let hasExits):
      if state.isFinal {
        // Even empty branches say the author expected the flow to go on.
        if hasExits { reportFinalWithExits(state, exits: "yes: and no: branches") }
        return
      }
      guard hasExits else {
        report(
          .missingExits, state.name, state.location,
          "\(describe(state)) has no exits. Give it yes: and no: branches, or declare it final (isFinal: true) if the run ends with its decision."
        )
        return
      }
      // `no` is pushed last, so it is walked first. The builder allocates a condition's
      // `yes` states, then its `no` states, then the condition itself: walking `no` first
      // reads memory in the reverse of that order, steadily, where walking `yes` first
      // jumps back and forth (at 100,000 states, 30 % slower).
      let yesEntry = push(state, part: 0, continuation: next, flow: flow)
      let noEntry = push(state, part: 1, continuation: next, flow: flow)
      appendExit(.yes, to: yesEntry)
      appendExit(.no, to: noEntry)

    case .multipleCondition(let decision, let hasExits):
      if state.isFinal {
        if hasExits { reportFinalWithExits(state, exits: "keyed exits") }
        return
      }
      guard hasExits, !decision.exits.isEmpty else {
        report(
          .missingExits, state.name, state.location,
          "\(describe(state)) has no exits. Declare a Case for each key it can decide (and a Default if you like), or declare it final (isFinal: true)."
        )
        return
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
      for (index, exit) in decision.exits.enumerated() {
        let entry = push(state, part: index, continuation: next, flow: flow)
        var label = StoredExit.Label.default
        if let key = exit.label {
          label = .key(Int32(keyLabels.count))
          keyLabels.append(key)
        }
        appendExit(label, to: entry)
      }

    case .dispatch(let branches, _):
      if branches.isEmpty {
        report(
          .emptyDispatch, state.name, state.location,
          "\(describe(state)) has no branches. Declare at least one Branch, or use an Action instead."
        )
      }
      firstBranchFlow[id] = Int32(flows.count)
      for (index, branch) in branches.enumerated() {
        let branchFlow = Int32(flows.count)
        flows.append(FlowOwner(dispatch: id, branch: index))
        if branch.isEmpty {
          report(
            .emptyBranch, state.name, state.location,
            "Branch \(index + 1) of \(describe(state)) is empty. Give it at least one state, ending at a final one."
          )
          continue
        }
        let entry = push(state, part: index, continuation: .end, flow: branchFlow)
        appendExit(.branch(Int32(index)), to: entry)
      }
      if !state.isFinal {
        appendExit(.next, to: next)
      }
    }
  }

  private mutating func reportFinalWithExits(_ state: StateDeclaration, exits: String) {
    report(
      .finalStateWithExits, state.name, state.location,
      "\(describe(state)) is final but declares \(exits), which could never be taken. Remove isFinal: true, or remove the exits."
    )
  }

  // MARK: - Pass 2

  /// Looks names up and reports each bad reference once.
  struct Resolver {
    /// The states of the names that `GoTo`s and entry points refer to.
    let names: NameTable
    /// Every state's record, for the names suggestions compare with.
    let records: [StateRecord]
    /// The references already reported. A `GoTo` that ends several blocks is resolved once
    /// per block; it is told apart from other references by its name and its location, so
    /// that two `GoTo`s written on one line are both reported.
    var reported: Set<Reference> = []
    /// How many more unknown names get a "did you mean" suggestion.
    var suggestionsLeft = 20
    /// The last name a `GoTo` found, and its state.
    var lastFound: (name: String, state: Int32)?

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
      switch names.match(name) {
      case .none: return .unknown
      case .one(let state): return .found(state)
      case .several(let states): return .ambiguous(states)
      }
    }
  }

  /// The table of the states whose names `GoTo`s and entry points refer to.
  ///
  /// A large chart's declarations are no longer in cache here, so it reads the name of a
  /// state only when its length is that of some reference, and hashes each run of equal
  /// `GoTo` names once.
  private func nameTable() -> NameTable {
    var referenced = Set(requestedEntryPoints)
    var previous: String?
    for name in goToNames where name != previous {
      referenced.insert(name)
      previous = name
    }
    guard !referenced.isEmpty else { return NameTable([]) }
    // Bit `n` for a length of `n` bytes; bit 63 for 63 bytes or more.
    var lengths: UInt64 = 0
    for name in referenced {
      lengths |= 1 << UInt64(min(name.utf8.count, 63))
    }
    let candidates = states.indices.lazy
      .filter { lengths & (1 << UInt64(min(Int(self.states[$0].nameLength), 63))) != 0 }
      .map { (name: self.records[$0].name, state: Int32($0)) }
      .filter { referenced.contains($0.name) }
    return NameTable(entries: candidates)
  }

  /// Marks a `GoTo` of ``goToTargets`` not resolved yet.
  private static var unresolved: Int32 { -2 }

  /// The state the `index`-th walked `GoTo` leads to, or ``Node/none``: resolved on first
  /// use, so that bad names are reported in the order arrows use them, and once per `GoTo`
  /// however many arrows it ends. A run of `GoTo`s to one name, such as many branches
  /// ending at a shared final state, is looked up once.
  private mutating func target(ofGoTo index: Int32, with resolver: inout Resolver) -> Int32 {
    let known = goToTargets[Int(index)]
    guard known == Self.unresolved else { return known }
    let name = goToNames[Int(index)]
    var target = Node.none
    if let found = resolver.lastFound, found.name == name {
      target = found.state
    } else if case .found(let state) = resolver.resolve(name) {
      target = state
      resolver.lastFound = (name, state)
    } else {
      // Only a bad name needs the GoTo's location, which means reading its declaration.
      _ = resolveName(name, at: location(ofGoTo: index), what: "GoTo", with: &resolver)
    }
    goToTargets[Int(index)] = target
    return target
  }

  /// Where the `index`-th walked `GoTo` was declared.
  private func location(ofGoTo index: Int32) -> SourceLocation {
    goTos[Int(index)]._withUnsafeGuaranteedRef { $0.location }
  }

  private mutating func resolveExits(
    of index: Int, with resolver: inout Resolver
  ) {
    let flow = states[index].flow
    for position in exitRange(of: index) {
      let exit = exits[position]
      switch entry(exitTargets[position]) {
      case .state(let target):
        exits[position].target = target
      case .block:
        preconditionFailure("a block's entry is never a block")
      case .end:
        reportNowhere(index, exit.label)
      case .name(let goTo):
        let target = self.target(ofGoTo: goTo, with: &resolver)
        guard target != Node.none else { continue }  // Reported when resolving the GoTo.
        // A branch's entry is written inside the branch: a GoTo there belongs to its flow.
        var flow = flow
        if case .branch(let branch) = exit.label,
          let first = firstBranchFlow[Int32(index)]
        {
          flow = first + Int32(branch)
        }
        if states[Int(target)].flow != flow {
          let (name, location) = (goToNames[Int(goTo)], self.location(ofGoTo: goTo))
          if resolver.reported.insert(Resolver.Reference(name: name, location: location)).inserted {
            report(
              .crossesBranchBoundary, name, location,
              "GoTo \(quoted(name)) in \(describeFlow(flow)) leads to a state in \(describeFlow(states[Int(target)].flow)). Arrows cannot cross a dispatch branch's boundary: move the state into the same flow, or end the branch with a final state and continue after the dispatch."
            )
          }
          continue
        }
        exits[position].target = target
      }
    }
  }

  /// Where the exits of the state `index` are in ``exits``.
  private func exitRange(of index: Int) -> Range<Int> {
    let end = index + 1 < states.count ? states[index + 1].firstExit : Int32(exits.count)
    return Int(states[index].firstExit)..<Int(end)
  }

  /// Appends an exit, whose target pass 2 resolves.
  private mutating func appendExit(_ label: StoredExit.Label, to target: Target) {
    exits.append(StoredExit(label: label, target: Node.none))
    exitTargets.append(target)
  }

  /// Whether the exit at `position` starts a dispatch branch.
  private func isBranch(_ position: Int) -> Bool {
    if case .branch = exits[position].label { return true }
    return false
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
          : closestName(to: name, in: resolver.records.lazy.map(\.name)).map {
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
        let lines = matches.map { records[Int($0)].location.line }.sorted().map(String.init)
        report(
          .ambiguousName, name, location,
          "\(what) \(quoted(name)) is ambiguous: \(matches.count) states have that name (declared at lines \(lines.joined(separator: ", "))). Rename them so the reference names one state."
        )
      }
      return nil
    }
  }

  private mutating func reportNowhere(_ index: Int, _ label: StoredExit.Label) {
    let state = states[index]
    let record = records[index]
    let place = describeFlow(state.flow)
    let advice =
      state.flow == 0
      ? "Add a state or a GoTo after it, or declare it final (isFinal: true)."
      : "A branch ends at a final state: declare it final (isFinal: true), or add a state or a GoTo after it."
    switch label {
    case .next:
      report(
        .exitLeadsNowhere, record.name, record.location,
        "\(describe(record)) is the last state of \(place) and is not final, so the flow has nowhere to go after it. \(advice)"
      )
    default:
      report(
        .exitLeadsNowhere, record.name, record.location,
        "The \(quoted("\(label.label(keyLabels: keyLabels))")) exit of \(describe(record)) leads nowhere: its block is empty and nothing follows it in \(place). Put a state or a GoTo in that exit, or add a state after it."
      )
    }
  }

  /// `target`, with a block replaced by its entry.
  private func entry(_ target: Target) -> Target {
    guard case .block(let block) = target else { return target }
    return blockEntries[Int(block)]
  }

  private mutating func resolveStart(_ target: Target, with resolver: inout Resolver) -> Int32? {
    switch entry(target) {
    case .state(let index): return index
    case .block: preconditionFailure("a block's entry is never a block")
    case .end: return nil
    case .name(let goTo):
      let index = self.target(ofGoTo: goTo, with: &resolver)
      guard index != Node.none else { return nil }  // Reported when resolving the GoTo.
      let flow = states[Int(index)].flow
      guard flow == 0 else {
        let (name, location) = (goToNames[Int(goTo)], self.location(ofGoTo: goTo))
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
      var unique = Resolver(names: resolver.names, records: resolver.records)
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

  private mutating func checkReachability(roots: [Int32]) {
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
        for position in exitRange(of: Int(index)) {
          let target = exits[position].target
          if target != Node.none, !reached[Int(target)] {
            pending.append(target)
          }
        }
      }
      return count
    }
    visit(from: roots)
    guard reached.contains(false) else { return }

    // Report each unreachable region once, at the state that leads into it.
    var hasUnreachablePredecessor = [Bool](repeating: false, count: states.count)
    for index in states.indices where !reached[index] {
      for position in exitRange(of: index) {
        let target = exits[position].target
        if target != Node.none, Int(target) != index {
          hasUnreachablePredecessor[Int(target)] = true
        }
      }
    }
    let candidates =
      states.indices.filter { !reached[$0] && !hasUnreachablePredecessor[$0] }
      + states.indices.filter { !reached[$0] && hasUnreachablePredecessor[$0] }
    for index in candidates where !reached[index] {
      let others = visit(from: [Int32(index)]) - 1
      let state = records[index]
      let tail =
        others > 0 ? " (nor can the \(others) state\(others == 1 ? "" : "s") it leads to)" : ""
      report(
        .unreachable, state.name, state.location,
        "\(describe(state)) can never be reached from the start\(tail). Reach it with a GoTo, list it in entryPoints: if runs start there, or remove it."
      )
    }
  }

  private mutating func checkFinalStatesAreReachable() {
    // Walk arrows backwards from every state whose flow can end there: final states, and
    // states already reported (their broken exits would otherwise be reported twice).
    // The predecessors of every state in one array (compressed rows): state `i`'s are at
    // `predecessors[firstPredecessor[i]..<firstPredecessor[i + 1]]`.
    var firstPredecessor = [Int32](repeating: 0, count: states.count + 1)
    var escapes = [Bool](repeating: false, count: states.count)
    for index in states.indices {
      let range = exitRange(of: index)
      if states[index].isFinal || range.isEmpty { escapes[index] = true }
      for position in range where !isBranch(position) {
        let target = exits[position].target
        if target != Node.none {
          firstPredecessor[Int(target)] += 1
        } else {
          escapes[index] = true
        }
      }
    }
    // Counts become each row's end; each arrow is then placed by moving its target's end
    // down one, which leaves every row's start where it belongs, with no second array of
    // positions.
    for index in states.indices.dropFirst() {
      firstPredecessor[index] += firstPredecessor[index - 1]
    }
    firstPredecessor[states.count] = firstPredecessor[states.count - 1]
    var predecessors = [Int32](repeating: 0, count: Int(firstPredecessor[states.count]))
    for index in states.indices {
      for position in exitRange(of: index) where !isBranch(position) {
        let target = Int(exits[position].target)
        if target != Int(Node.none) {
          firstPredecessor[target] -= 1
          predecessors[Int(firstPredecessor[target])] = Int32(index)
        }
      }
    }
    var pending = states.indices.filter { escapes[$0] }.map { Int32($0) }
    while let index = pending.popLast() {
      let incoming =
        Int(firstPredecessor[Int(index)])..<Int(firstPredecessor[Int(index) + 1])
      for predecessor in predecessors[incoming] where !escapes[Int(predecessor)] {
        escapes[Int(predecessor)] = true
        pending.append(predecessor)
      }
    }
    let trapped = states.indices.filter { !escapes[$0] }
    let byFlow = Dictionary(grouping: trapped) { states[$0].flow }
    for flow in byFlow.keys.sorted() {
      let members = byFlow[flow]!
      let first = records[members[0]]
      let names = members.prefix(5).map { quoted(records[$0].name) }
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

  private mutating func emit(
    start: Int32, entryPoints: [Int32]
  ) -> CompiledChart {
    // Every target is resolved here: unresolved ones were reported, and compiling threw.
    for index in states.indices {
      let range = exitRange(of: index)
      switch nodes[index].kind {
      case .pass, .action, .asyncAction:
        if !range.isEmpty { nodes[index].next = exits[range.lowerBound].target }
      case .condition, .asyncCondition:
        if range.count == 2 {
          nodes[index].next = exits[range.lowerBound].target
          nodes[index].alternative = exits[range.lowerBound + 1].target
        }
      default:
        break  // Multiple conditions and dispatches: finished below.
      }
    }
    var dispatches: [DispatchPlan] = []
    for item in unfinished {
      let index = Int(item.state)
      let range = exitRange(of: index)
      switch item.work {
      case .multipleCondition(let makeSelector, let makeFinalDecision):
        let code =
          states[index].isFinal ? makeFinalDecision() : makeSelector(exits[range].map(\.target))
        var node = nodes[index]
        attach(code, to: &node)
        nodes[index] = node
      case .dispatch(let merge):
        let branchStarts = range.filter(isBranch).map { exits[$0].target }
        nodes[index].alternative = Int32(dispatches.count)
        dispatches.append(DispatchPlan(branchStarts: branchStarts, merge: merge))
        if !states[index].isFinal, let last = range.last { nodes[index].next = exits[last].target }
      }
    }
    return CompiledChart(
      declarations: declarations, nodes: nodes, codeBoxes: codeBoxes, dispatches: dispatches,
      records: records,
      exits: exits, keyLabels: keyLabels, start: start, entryPoints: entryPoints,
      asynchronousStates: asynchronousStates)
  }

  // MARK: - Messages

  private mutating func report(
    _ kind: DefinitionError.Kind, _ name: String?, _ location: SourceLocation, _ message: String
  ) {
    problems.append(
      DefinitionError.Problem(kind: kind, name: name, location: location, message: message))
  }

  private func describe(_ state: StateDeclaration) -> String {
    describe(state.kind, state.name)
  }

  private func describe(_ record: StateRecord) -> String {
    describe(record.kind, record.name)
  }

  /// `Action 'Fetch'`, `Multiple condition 'Plan?'`, …
  private func describe(_ kind: StateKind, _ name: String) -> String {
    "\(kind.description.capitalizedFirst) \(quoted(name))"
  }

  private func describeFlow(_ flow: Int32) -> String {
    let owner = flows[Int(flow)]
    guard let dispatch = owner.dispatch else { return "the top level" }
    let name = records[Int(dispatch)].name
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
private func closestName(to name: String, in names: some Collection<String>) -> String? {
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

/// Whether `name` spans several lines. Checks bytes, and only looks at characters, which is
/// much slower, when the name is not ASCII.
private func containsLineBreak(_ name: String) -> Bool {
  var name = name
  let isASCII = name.withUTF8 { bytes in
    bytes.allSatisfy { $0 < 0x80 }
  }
  guard isASCII else { return name.contains(where: \.isNewline) }
  // Line feed, vertical tab, form feed, carriage return.
  return name.withUTF8 { bytes in bytes.contains { (0x0A...0x0D).contains($0) } }
}
