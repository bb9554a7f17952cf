/// Turns a declaration into a validated ``CompiledChart``, or collects every problem into
/// one ``DefinitionError``.
///
/// A compiler is used once: make one, call ``compile(_:)`` once, and drop it. It keeps what
/// it learns about one declaration in its stored properties, and a second call is a
/// programming error that stops the program.
///
/// The compiler is not generic: declarations hold their code already boxed over the chart's
/// context, so it is written once for every context type. It works in passes, one file
/// each, each linear in the size of the declaration and none recursive, so a chart of any
/// size or nesting compiles without growing the stack:
/// 1. *Number* (`Compiler+Numbering.swift`): walk the blocks depth first with an explicit
///    stack; write each state's record and node at its ID, and note each exit as a
///    ``Target`` (a state, a block's entry, a name to resolve, or the end of the flow).
///    IDs follow the declaration (pre-order), whatever order the walk takes: every
///    declaration knows how many states and exits it holds, so a block's first ID and
///    first exit are known when it is pushed.
/// 2. *Resolve* (`Compiler+Resolving.swift`): look names up once, check that every `GoTo`
///    names one state, that arrows stay inside their flow and that every exit of a
///    non-final state leads somewhere.
/// 3. *Check the graph* (`Compiler+GraphChecks.swift`): every state reachable from the
///    start or an entry point, every loop able to reach a final state.
/// 4. *Emit* (`Compiler+Emitting.swift`): fill in each node's exits, make the multiple
///    conditions' code, which depends on their targets, and plan the dispatches.
///
/// Problems are recorded as facts (``Finding``) and worded in one place,
/// `DSLWording.swift`. A mistake is reported once, at its cause: passes 2 and 3 act
/// as if each reported mistake were fixed (see ``fallbacks``), so that a broken state
/// does not also make the states after it "unreachable".
///
/// Compiling a large chart is bound by the memory it touches, not by its instructions, so
/// the passes read and write flat arrays, read each declaration once, and do not retain or
/// release declarations while walking them: an atomic reference count on an object that
/// is not in cache waits for memory. The compiled chart keeps the declaration whole, so
/// compiling never releases a declared state either.
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
    /// Nowhere, because of a mistake already reported (an empty branch).
    case broken
  }

  /// What passes 2 and 3 read of every state, in 12 bytes, so that they never read its
  /// declaration again: compiling a large chart is bound by the memory it touches.
  struct PendingState {
    var flow: Int32
    /// Where the state's exits start in ``Compiler/exits``; they end where the
    /// next state's begin.
    var firstExit: Int32
    /// The length of the state's name in UTF-8 bytes, at most `UInt16.max`: looking names
    /// up reads the names of only the states whose length some reference has.
    var nameLength: UInt16
    var isFinal: Bool
    /// Whether the name is ASCII: only then does its length tell it apart from an ASCII
    /// reference. (`"K"` and the Kelvin sign `"\u{212A}"` are equal strings.)
    var isASCII: Bool
  }

  /// A multiple condition, whose code depends on its targets, or a dispatch, whose plan
  /// does: pass 4 finishes them.
  struct Unfinished {
    enum Work {
      case multipleCondition(
        makeSelector: @Sendable ([Int32]) -> DeclaredCode,
        makeFinalDecision: @Sendable () -> DeclaredCode)
      /// `prerequisites` and `order` are empty when no branch has prerequisites.
      case dispatch(behavior: DispatchBehavior?, prerequisites: [[Int32]], order: [Int32])
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
    /// The ID of the block's first state and the position of its first exit; when
    /// `fromEnd`, the ID after its last state and the position after its last exit.
    var state: Int32
    var exit: Int32
    /// Whether the block is numbered from its end, walking its declarations backwards: a
    /// condition's `no` block, whose start would take counting its `yes` block's states.
    var fromEnd: Bool
  }

  /// What a flow is, for messages: the top level, or a branch of a dispatch.
  struct FlowOwner {
    var dispatch: Int32?
    var branch: Int
    var name: String?
  }

  let requestedEntryPoints: [String]
  let location: SourceLocation
  /// The words its findings are worded with (see `Compiler+Vocabulary.swift`).
  var vocabulary = DeclarationVocabulary.swift
  /// Whether ``compile(_:)`` ran: a compiler is used once.
  private var isUsed = false
  /// The declaration being compiled, which the compiled chart keeps.
  var declarations: [DeclarationNode] = []
  /// Indexed by state ID, like ``records`` and ``nodes``.
  var states: [PendingState] = []
  /// The output, written in place by pass 1 and completed by pass 4.
  var records: [StateRecord] = []
  var nodes = NodeBuffer(capacity: 0)
  var codeBoxes: [any AnyObject & Sendable] = []
  var asynchronousStates: [Int32] = []
  /// The subflows, which pass 4 may mark to run in place (see ``CallSite``).
  var subflowStates: [Int32] = []
  /// Every state's exits, one state after another in ID order: one array for the whole
  /// chart rather than one per state, which becomes the compiled chart's. Pass 2 writes
  /// each exit's target, ``Node/none`` until then and where it leads nowhere.
  var exits: [StoredExit] = []
  /// Where each exit of ``exits`` leads, as declared.
  var exitTargets: [Target] = []
  /// The text of the multiple conditions' keys, which ``StoredExit/Label/key(_:)`` refers
  /// to.
  var keyLabels: [String] = []
  /// The multiple conditions and dispatches, for pass 4.
  var unfinished: [Unfinished] = []
  /// The first flow of each dispatch's branches, which are numbered one after another.
  var firstBranchFlow: [Int32: Int32] = [:]
  /// Blocks waiting to be walked, last in, first out: depth first, so a nested block is
  /// walked soon after its parent, while their declarations are still in cache.
  var stack: [PendingBlock] = []
  /// The entry of each block, set when the block is walked.
  var blockEntries: [Target] = []
  var flows: [FlowOwner] = [FlowOwner(dispatch: nil, branch: 0, name: nil)]
  /// Every problem found so far, as facts.
  var findings: [Finding] = []
  /// Every `GoTo` of the walked blocks, in the order they are walked, unretained (the
  /// declarations own them): ``Target/name`` refers to them by position.
  var goTos: [Unmanaged<GoToDeclaration>] = []
  /// The name of each of ``goTos``, copied when the walk reads it.
  var goToNames: [String] = []
  /// The state each of ``goTos`` leads to, ``Node/none`` when its name is not the name of
  /// exactly one state or no arrow can take it, or ``unresolved``: set in pass 2, once per
  /// `GoTo` however many arrows it ends.
  var goToTargets: [Int32] = []
  /// The arrows that fixing a reported mistake would add: from a state without exits to
  /// the state after it, from a final state with exits into its blocks. Passes 2 and 3
  /// follow them, so that one mistake is one problem.
  var fallbacks: [(state: Int32, target: Target, flow: Int32)] = []
  /// ``fallbacks``, resolved to states in pass 2.
  var fixedArrows: [(from: Int32, to: Int32)] = []
  /// Where each `GoTo` whose name is bad would lead once its name is fixed: the suggested
  /// or the ambiguous states; ``Fix/anywhere`` when there is no telling.
  var goToFixes: [Int32: Fix] = [:]
  /// The flows in which any state might be reachable once a reported mistake is fixed:
  /// an unknown name without a suggestion could be any state's.
  var excusedFlows: Set<Int32> = []
  /// States that a fixed mistake would lead to from outside their flow.
  var excusedRoots: [Int32] = []
  /// The states with modifiers, in the order they are walked (see
  /// `Compiler+Modifiers.swift`).
  var modifiedStates: [ModifiedEntry] = []

  /// Where a bad name would lead once fixed.
  enum Fix {
    case states([Int32])
    case anywhere
  }

  @usableFromInline
  init(entryPoints: [String], location: SourceLocation) {
    requestedEntryPoints = entryPoints
    self.location = location
  }

  /// Compiles `declarations`, the chart's top-level block.
  ///
  /// - Precondition: This compiler has not compiled before.
  @usableFromInline
  mutating func compile(
    _ declarations: [DeclarationNode]
  ) throws(DefinitionError) -> CompiledChart {
    precondition(!isUsed, "a Compiler compiles one declaration")
    isUsed = true
    self.declarations = declarations

    // Pass 1: number the states, into arrays sized once.
    let startTarget = number()
    if states.isEmpty {
      findings.append(.emptyChart(chart: location))
      let wording = DSLWording(vocabulary: vocabulary)
      throw DefinitionError(
        problems: findings.map { $0.problem(wording: wording) }, location: location)
    }

    // Pass 2: resolve names and check each exit.
    let (start, entryPoints) = resolve(start: startTarget)
    resolveCatchRoutes()
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
    checkLoopsReachFinalStates()

    guard findings.isEmpty, let start else {
      let wording = DSLWording(vocabulary: vocabulary)
      let problems = findings.map { $0.problem(wording: wording) }
      let sorted = problems.enumerated().sorted {
        ($0.element.location.fileID, $0.element.location.line, $0.offset)
          < ($1.element.location.fileID, $1.element.location.line, $1.offset)
      }
      throw DefinitionError(problems: sorted.map(\.element), location: location)
    }

    // Pass 4: emit.
    return emit(start: start, entryPoints: entryPoints)
  }

  // MARK: - Facts for findings

  func facts(_ state: StateDeclaration) -> StateFacts {
    StateFacts(kind: state.kind, name: state.name, location: state.location)
  }

  func facts(_ record: StateRecord) -> StateFacts {
    StateFacts(kind: record.kind, name: record.name, location: record.location)
  }

  func facts(ofState index: Int) -> StateFacts {
    facts(records[index])
  }

  func facts(ofFlow flow: Int32) -> FlowFacts {
    let owner = flows[Int(flow)]
    guard let dispatch = owner.dispatch else { return .topLevel }
    return .branch(
      number: owner.branch + 1, name: owner.name, dispatch: records[Int(dispatch)].name)
  }

  /// Where the exits of the state `index` are in ``exits``.
  ///
  /// Always inlined: called out of line from a mutating pass, it made that pass copy the
  /// whole compiler (272 bytes) once a state to call it (issue 26).
  @inline(__always)
  func exitRange(of index: Int) -> Range<Int> {
    let end = index + 1 < states.count ? states[index + 1].firstExit : Int32(exits.count)
    return Int(states[index].firstExit)..<Int(end)
  }

  /// Whether the exit at `position` starts a dispatch branch.
  func isBranch(_ position: Int) -> Bool {
    if case .branch = exits[position].label { return true }
    return false
  }
}
