/// A compiled chart run as one state of another: a subflow.
///
/// A subflow runs its chart from the chart's start on a context it takes from the outer
/// context, writes the inner context back when the inner run ends, and goes on the way the
/// inner run ended. Declare it in one of three shapes, as the outer chart needs:
///
/// ```swift
/// let login = try Flowchart<Session> {
///   Action("Ask for a password", isFinal: true) { $0.isLoggedIn = true }
/// }
/// let payment = try Flowchart<Payment> {
///   Action("Charge") { $0.isCharged = true }
///   Condition("Card accepted?", isFinal: true) { $0.cardIsValid }
/// }
/// let checkout = try Flowchart<Order> {
///   Condition("In stock?") { $0.inStock } yes: {
///     Action("Paid", isFinal: true)
///   } no: {
///     Action("Out of stock", isFinal: true)
///   }
/// }
///
/// let shop = try Flowchart<Shop> {
///   // An action: go on once the inner run has ended, however it ended.
///   Subflow("Log in", running: login, context: .keyPath(\.session))
///   // A condition: the inner run ends at a final condition, whose decision is this one's.
///   Subflow("Pay", running: payment, context: .keyPath(\.payment)) {
///     Action("Paid")
///   } no: {
///     Action("Cancelled", isFinal: true)
///   }
///   // A multiple condition: one exit per final state of the inner chart, by name.
///   Subflow("Check out", running: checkout, context: .keyPath(\.order)) {
///     Case("Paid") { Action("Ship", isFinal: true) }
///     Case("Out of stock") { Action("Apologise", isFinal: true) }
///   }
/// }
/// ```
///
/// The inner run is an ordinary run of its chart. It runs synchronously, inside the outer
/// run's synchronous stretch, when its chart ``Flowchart/isSynchronous``; otherwise the
/// subflow is an asynchronous state. Cancelling the outer run cancels the inner one. A
/// synchronous inner run is part of the subflow's state: it asks its task whether it was
/// cancelled when a state throws and at the checkpoints of its path after its first state
/// (its second state, then at least every 4,096 states), while the outer run's own
/// boundaries check before the subflow and after it. When
/// the inner run fails, the outer run fails at the subflow with the inner error's kind; its
/// ``RunError/underlyingError`` is the inner ``RunError``, whose message and path name the
/// states of the inner chart, so the message names the way through both charts. A subflow
/// used as a condition whose inner run ends with a decision other than yes or no fails the
/// same way.
///
/// A synchronous subflow on the ``ContextMapping/whole`` context, used as an action or a
/// condition, whose chart has no dispatch and no modifiers, runs its chart *in place*: the
/// outer run's loop runs the chart's states itself, on the outer context, with no run of
/// their own to set up, so a visit costs little more than the states it runs (see
/// BENCHMARKS.md). It behaves exactly as the inner run described above: the same outcome,
/// the same errors, the same cancellation checks. A live run, which reports every state it
/// enters, runs each subflow as an inner run.
///
/// The compiler checks a keyed subflow's exits against the inner chart: without a
/// ``Default``, each of the inner chart's top-level final states needs a ``Case``.
///
/// The tree printer shows a subflow as one state with the letter `F`; see
/// ``Flowchart/printTree(to:expandingSubflows:)`` to print its chart nested below it.
///
/// Subflows are how charts compose: the inner chart is compiled, checked and tested on its
/// own, and any number of charts may use it. A chart cannot contain itself, since it must be
/// compiled before another chart can use it.
public struct Subflow<Context: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares a subflow used as an action: the outer run goes on to the next state once the
  /// inner run has ended, at whichever final state.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - isFinal: Whether the outer flow ends after the subflow.
  ///   - chart: The chart to run.
  ///   - context: How the inner context is taken from the outer one and written back.
  ///   - stepLimit: A step limit for the inner run, or `nil` for none. The outer run's
  ///     step limit counts the subflow as one step.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  @inlinable
  public init<Inner: Sendable>(
    _ name: String,
    isFinal: Bool = false,
    running chart: Flowchart<Inner>,
    context: ContextMapping<Context, Inner>,
    stepLimit: Int? = nil,
    fileID: String = #fileID,
    line: Int = #line
  ) {
    self.init(
      name, isFinal, chart, context, stepLimit, fileID, line,
      Self.synchronousRun(of: chart, mapping: context, stepLimit: stepLimit), .next)
  }

  /// Declares a subflow used as a condition: the inner run ends at a final condition, and
  /// its decision picks the exit.
  ///
  /// The outer run follows `yes` when the inner run ends deciding yes, `no` when it ends
  /// deciding no. A final subflow (`isFinal: true`) has no exits: declaring them is a
  /// definition error. The other parameters are those of the subflow used as an action.
  public init<Inner: Sendable>(
    _ name: String,
    isFinal: Bool = false,
    running chart: Flowchart<Inner>,
    context: ContextMapping<Context, Inner>,
    stepLimit: Int? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    @FlowBuilder<Context> yes: () -> [Declaration<Context>],
    @FlowBuilder<Context> no: () -> [Declaration<Context>]
  ) {
    self.init(
      name, isFinal, chart, context, stepLimit, fileID, line,
      Self.synchronousRun(of: chart, mapping: context, stepLimit: stepLimit), .yesNo(yes(), no()))
  }

  /// Declares a subflow used as a multiple condition: the name of the final state the inner
  /// run ends at is the key.
  ///
  /// `exits` holds a ``Case`` per name of a top-level final state of `chart`, or a
  /// ``Default`` for those without one. The other parameters are those of the subflow used
  /// as an action.
  public init<Inner: Sendable>(
    _ name: String,
    isFinal: Bool = false,
    running chart: Flowchart<Inner>,
    context: ContextMapping<Context, Inner>,
    stepLimit: Int? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    @ExitBuilder<Context, String> exits: () -> [KeyedExit<Context, String>]
  ) {
    self.init(
      name, isFinal, chart, context, stepLimit, fileID, line,
      Self.synchronousRun(of: chart, mapping: context, stepLimit: stepLimit), .keyed(exits()))
  }

  /// What a subflow is used as, with the exits it declares.
  @usableFromInline
  enum Shape {
    /// An action, with one exit to the next state.
    case next
    /// A condition, with its `yes` and `no` blocks.
    case yesNo([Declaration<Context>], [Declaration<Context>])
    /// A multiple condition, with an exit per name of a final state of the chart.
    case keyed([KeyedExit<Context, String>])
  }

  /// The designated initializer, which every public one forwards to with its shape and the
  /// synchronous inner run it made (see ``synchronousRun(of:mapping:stepLimit:)``),
  /// specialized for both contexts.
  @usableFromInline
  init<Inner: Sendable>(
    _ name: String, _ isFinal: Bool, _ chart: Flowchart<Inner>,
    _ context: ContextMapping<Context, Inner>, _ stepLimit: Int?, _ fileID: String, _ line: Int,
    _ innerRun: @escaping SubflowRun<Context, Inner>.SynchronousRun, _ shape: Shape
  ) {
    let run = SubflowRun(chart: chart, mapping: context, stepLimit: stepLimit)
    let code: DeclaredCode
    let body: DeclaredBody
    switch shape {
    case .next:
      code =
        chart.isSynchronous
        ? DeclaredCode(.action, ActionBox<Context> { outer in _ = try innerRun(&outer) })
        : DeclaredCode(.asyncAction, AsyncActionBox<Context> { outer in _ = try await run(&outer) })
      body = .next
    case .yesNo(let yes, let no):
      code =
        chart.isSynchronous
        ? DeclaredCode(
          .condition,
          ConditionBox<Context> { outer in try run.decision(of: innerRun(&outer)) })
        : DeclaredCode(
          .asyncCondition,
          AsyncConditionBox<Context> { outer in try await run.decision(of: run(&outer)) })
      body = .yesNo(yes: yes.map { $0.node }, no: no.map { $0.node }, hasExits: true)
    case .keyed(let exits):
      let decide: KeyedDecision.Decide<Context, String> =
        chart.isSynchronous
        ? .synchronous { outer in try run.finalStateName(of: innerRun(&outer)) }
        : .asynchronous { outer in try await run.finalStateName(of: run(&outer)) }
      var finalNames: [String] = []
      for id in chart.states where chart[id].isFinal && chart[id].isTopLevel {
        let name = chart[id].name
        if !finalNames.contains(name) { finalNames.append(name) }
      }
      let decision = KeyedDecision(
        decide, exits: exits,
        possibleKeys: finalNames.map { (key: $0, text: DisplayText.quoted(name: $0)) })
      code = .none
      body = .keyed(decision, hasExits: true)
    }
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .subflow, body: body,
      code: code, attachment: run)
  }
}

extension Subflow {
  /// A synchronous subflow's visit: the inner run on the mapped context, written back.
  /// Made in the (inlinable) declaration, so that the inner run is specialized for both
  /// contexts where they are known: a generic inner run costs many times the state it
  /// stands for. (Only called for a chart that ``Flowchart/isSynchronous``.)
  ///
  /// What can be settled once is settled here, not on each visit: the step limit, the
  /// interpreter and the start. A visit runs the chart as a nested run (see
  /// ``Interpreter/runNested(from:context:control:)``): the outer run's boundaries read
  /// the cancellation before and after it.
  @inlinable
  static func synchronousRun<Inner: Sendable>(
    of chart: Flowchart<Inner>, mapping: ContextMapping<Context, Inner>, stepLimit: Int?
  ) -> SubflowRun<Context, Inner>.SynchronousRun {
    guard chart.isSynchronous, let limit = try? chart.validatedStepLimit(stepLimit) else {
      // Every visit fails, with the error an ordinary run of the chart throws.
      return { outer in
        let ending = try chart.runToEndSynchronously(
          with: mapping.enter(outer), stepLimit: stepLimit)
        try mapping.leave(&outer, ending.context)
        return (ending.decision, ending.finalState)
      }
    }
    let interpreter = Interpreter(graph: chart.graph, stepLimit: limit)
    let start = chart.startIndex
    let control = RunControl.inert
    if mapping.isWhole {
      // `.whole` exists only where the two contexts are one type: the inner run works on
      // the outer context in place, with no copy in and out. A failed visit leaves it part
      // done, as any failed state's code may; a live run, a retry and a catch route start
      // from the context they kept before the state.
      return { outer in
        try withUnsafeMutablePointer(to: &outer) { (pointer) throws(RunError) in
          try pointer.withMemoryRebound(to: Inner.self, capacity: 1) {
            (inner) throws(RunError) in
            try interpreter.runNested(from: start, context: &inner.pointee, control: control)
          }
        }
      }
    }
    return { outer in
      var inner = try mapping.enter(outer)
      let ending = try interpreter.runNested(from: start, context: &inner, control: control)
      try mapping.leave(&outer, inner)
      return ending
    }
  }
}

/// How a ``Subflow`` takes its chart's context from the outer context, and writes it back
/// when the inner run ends.
///
/// ```swift
/// .keyPath(\.order)      // a stored property of the outer context
/// .whole                 // the same context type, passed whole
/// ContextMapping(enter: { Payment(amount: $0.total) }, leave: { $0.isPaid = $1.isPaid })
/// ```
public struct ContextMapping<Outer: Sendable, Inner: Sendable>: Sendable {
  @usableFromInline let enter: @Sendable (Outer) throws -> Inner
  @usableFromInline let leave: @Sendable (inout Outer, Inner) throws -> Void
  /// Whether this is ``whole``: `Outer` and `Inner` are one type, and a synchronous
  /// subflow runs its chart on the outer context in place.
  @usableFromInline let isWhole: Bool

  /// A mapping by closures, for anything richer than a key path.
  ///
  /// - Parameters:
  ///   - enter: Makes the inner context from the outer one, before the inner run starts.
  ///     An error it throws fails the outer run at the subflow.
  ///   - leave: Writes what the inner run left back into the outer context, after the
  ///     inner run has ended at a final state. Not called when the inner run fails.
  public init(
    enter: @escaping @Sendable (Outer) throws -> Inner,
    leave: @escaping @Sendable (inout Outer, Inner) throws -> Void
  ) {
    self.init(enter: enter, leave: leave, isWhole: false)
  }

  private init(
    enter: @escaping @Sendable (Outer) throws -> Inner,
    leave: @escaping @Sendable (inout Outer, Inner) throws -> Void, isWhole: Bool
  ) {
    self.enter = enter
    self.leave = leave
    self.isWhole = isWhole
  }

  /// The inner context is the value at `keyPath` of the outer context, and is written back
  /// there.
  public static func keyPath(_ keyPath: WritableKeyPath<Outer, Inner> & Sendable) -> Self {
    ContextMapping(enter: { $0[keyPath: keyPath] }, leave: { $0[keyPath: keyPath] = $1 })
  }
}

extension ContextMapping where Outer == Inner {
  /// The inner chart runs on the outer context itself, and its result replaces it.
  public static var whole: Self {
    ContextMapping(enter: { $0 }, leave: { $0 = $1 }, isWhole: true)
  }
}

/// What a subflow's code runs: its chart with the mapping, synchronously or not. Also what
/// the subflow's declaration keeps for printing the chart nested (see ``NestedChart``).
@usableFromInline
final class SubflowRun<Outer: Sendable, Inner: Sendable>: NestedChart {
  let chart: Flowchart<Inner>
  let mapping: ContextMapping<Outer, Inner>
  let stepLimit: Int?
  @usableFromInline
  init(chart: Flowchart<Inner>, mapping: ContextMapping<Outer, Inner>, stepLimit: Int?) {
    self.chart = chart
    self.mapping = mapping
    self.stepLimit = stepLimit
  }

  /// How an inner run ended: its decision and its final state. (Not a ``RunResult``,
  /// whose path a subflow would copy out on every visit for nothing, nor the inner context,
  /// which is already written back: a tuple of concrete types, so the subflow's box, which
  /// is generic code, handles it without looking up metadata.)
  @usableFromInline
  typealias Ending = (decision: Decision, finalState: Int32)

  /// A synchronous visit: runs the chart on the mapped context, and writes the result back.
  @usableFromInline
  typealias SynchronousRun = @Sendable (inout Outer) throws -> Ending

  /// Runs the chart on the mapped context, and writes the result back. In a live run, as a
  /// nested run whose positions the run's snapshots hold, when it can be (see
  /// `SubflowRun+Nested.swift`).
  func callAsFunction(_ outer: inout Outer) async throws -> Ending {
    if _slowPath(SubflowHost.current != nil || InnerRun.current != nil) {
      if let host = SubflowHost.current, host.attachment === self,
        let ending = try await runHosted(&outer, host: host)
      {
        return ending
      }
      return try await runApart(&outer)
    }
    let ending = try await chart.runToEnd(with: mapping.enter(outer), stepLimit: stepLimit)
    try mapping.leave(&outer, ending.context)
    return (ending.decision, ending.finalState)
  }

  /// The name of the state an inner run ended at: a keyed subflow's key.
  func finalStateName(of ending: Ending) -> String {
    chart.graph.records[Int(ending.finalState)].name
  }

  /// The yes-or-no decision a subflow used as a condition takes from the inner run.
  func decision(of ending: Ending) throws -> Bool {
    if ending.decision == .yes { return true }
    if ending.decision == .no { return false }
    let final = chart.graph.records[Int(ending.finalState)]
    throw SubflowWithoutYesOrNo(
      finalState: final.name, kind: final.kind, decision: ending.decision)
  }

  func treeWriter() -> any TreeWriting { TreeWriter(expanding: chart) }
}

/// A subflow whose chart a synchronous loop may run in place of its state (see
/// ``CallSite``).
protocol InPlaceSubflow {
  /// The call site for running the chart in place in a chart over `Context`, or `nil` when
  /// it must run nested: its mapping is not ``ContextMapping/whole``, or its chart has a
  /// state that the synchronous loop does not run (an asynchronous state, a dispatch, a
  /// state with modifiers), or its step limit is invalid.
  func callSite<Context: Sendable>(over: Context.Type) -> CallSite?
  /// The chart's graph, over `Context`: for the errors of a visit run in place.
  func graph<Context: Sendable>(over: Context.Type) -> Graph<Context>?
}

extension SubflowRun: InPlaceSubflow {
  func callSite<Context: Sendable>(over: Context.Type) -> CallSite? {
    guard mapping.isWhole, let graph = graph(over: Context.self),
      let limit = try? chart.validatedStepLimit(stepLimit), graph.runsInOneLoop
    else { return nil }
    return CallSite(nodes: graph.nodeBase, start: graph.start, limit: limit)
  }

  func graph<Context: Sendable>(over: Context.Type) -> Graph<Context>? {
    chart.graph as? Graph<Context>
  }
}

/// A chart a state holds, which the tree printer can draw nested below it.
protocol NestedChart: AnyObject, Sendable {
  /// A printer of the chart's tree, its own subflows expanded.
  func treeWriter() -> any TreeWriting
}

/// Thrown by a subflow used as a condition whose inner run ended with a decision other
/// than yes or no.
@usableFromInline
struct SubflowWithoutYesOrNo: Error, CustomStringConvertible {
  let finalState: String
  let kind: StateKind
  let decision: Decision

  @usableFromInline var description: String {
    "its chart ended at \(kind) \(DisplayText.quoted(name: finalState)), which decided \(decision) where the subflow needs yes or no. End the chart at final conditions, or use the subflow as an action or with a Case per final state."
  }
}
