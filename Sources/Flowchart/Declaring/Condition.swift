/// A state that decides yes or no and follows the matching exit.
///
/// Write each exit as an inline block, so the code reads like the drawn tree:
///
/// ```swift
/// Condition("Willing to exercise?") { $0.isWillingToExercise } yes: {
///   Action("Lift weights") { try await $0.liftWeights() }
///   Action("Sit-ups", isFinal: true) { try await $0.doSitUps() }
/// } no: {
///   Condition("Injured?", isFinal: true) { $0.isInjured }
/// }
/// ```
///
/// A branch that ends without a final state or a ``GoTo`` goes on to whatever follows the
/// condition in its block, like the end of an `if` statement; an empty branch goes there
/// directly. A final condition still decides, and the run's result reports the decision,
/// but it has no exits.
///
/// The decision may be synchronous or `async throws`: each shape of exits has both forms,
/// chosen from the closure you write, and a synchronous decision never suspends the run.
/// Every form takes the same `name`, `isFinal`, `fileID` and `line`, described on the
/// first.
public struct Condition<Context: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares a condition with a synchronous decision and its two exits.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - isFinal: Whether the flow ends after the decision. A final condition has no
  ///     exits: declaring them is a definition error.
  ///   - decide: Returns `true` to follow `yes`, `false` to follow `no`.
  ///   - yes: The states to run when the decision is `true`.
  ///   - no: The states to run when the decision is `false`.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) throws -> Bool,
    @FlowBuilder<Context> yes: () -> [Declaration<Context>],
    @FlowBuilder<Context> no: () -> [Declaration<Context>]
  ) {
    self.init(
      name, isFinal, fileID, line, DeclaredCode(.condition, ConditionBox(decide)), hasExits: true,
      yes: yes, no: no)
  }

  /// Declares a condition with an asynchronous decision and its two exits.
  ///
  /// The run awaits `decide`, then follows `yes` when it returns `true` and `no` when it
  /// returns `false`. The other parameters are those of the synchronous form.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) async throws -> Bool,
    @FlowBuilder<Context> yes: () -> [Declaration<Context>],
    @FlowBuilder<Context> no: () -> [Declaration<Context>]
  ) {
    self.init(
      name, isFinal, fileID, line, DeclaredCode(.asyncCondition, AsyncConditionBox(decide)),
      hasExits: true, yes: yes, no: no)
  }

  /// Declares a condition with a synchronous decision and only a `yes` exit: when the
  /// decision is `false`, the flow goes on to what follows the condition, like an `if`
  /// without `else`.
  ///
  /// ```swift
  /// Condition("Has coupon?") { $0.coupon != nil } yes: {
  ///   Action("Apply coupon") { $0.applyCoupon() }
  /// }
  /// Action("Check out", isFinal: true)
  /// ```
  ///
  /// The run follows `yes` when `decide` returns `true`. The other parameters are those of
  /// the condition with two exits.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) throws -> Bool,
    @FlowBuilder<Context> yes: () -> [Declaration<Context>]
  ) {
    self.init(
      name, isFinal, fileID, line, DeclaredCode(.condition, ConditionBox(decide)), hasExits: true,
      yes: yes, no: { [] })
  }

  /// Declares a condition with an asynchronous decision and only a `yes` exit: when the
  /// decision is `false`, the flow goes on to what follows the condition.
  ///
  /// The run awaits `decide`, then follows `yes` when it returns `true`. The other
  /// parameters are those of the condition with two exits.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) async throws -> Bool,
    @FlowBuilder<Context> yes: () -> [Declaration<Context>]
  ) {
    self.init(
      name, isFinal, fileID, line, DeclaredCode(.asyncCondition, AsyncConditionBox(decide)),
      hasExits: true, yes: yes, no: { [] })
  }

  /// Declares a condition without exits: usually a final condition whose decision is the
  /// run's result.
  ///
  /// ```swift
  /// Condition("Injured?", isFinal: true) { $0.isInjured }
  /// ```
  ///
  /// A condition declared this way that is not final is a definition error, since it has
  /// nowhere to go.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) throws -> Bool
  ) {
    self.init(
      name, isFinal, fileID, line, DeclaredCode(.condition, ConditionBox(decide)), hasExits: false,
      yes: { [] }, no: { [] })
  }

  /// Declares a condition without exits whose decision is asynchronous.
  ///
  /// A condition declared this way that is not final is a definition error.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) async throws -> Bool
  ) {
    self.init(
      name, isFinal, fileID, line, DeclaredCode(.asyncCondition, AsyncConditionBox(decide)),
      hasExits: false, yes: { [] }, no: { [] })
  }

  /// The designated initializer, which every public one forwards to with its code: a
  /// condition's state, with its `yes` and `no` blocks (both empty, and `hasExits` false,
  /// when it declares no exits).
  ///
  /// It builds in the order the inlined bodies it replaced did, which compiling a large
  /// chart depends on (see BENCHMARKS.md): each block is turned into the body's nodes before
  /// the next is built, and the code's box is made last, just before the state's
  /// declaration, so that the two sit side by side in the heap rather than on either side
  /// of everything the blocks allocate. Taking both blocks built, and the box first, cost
  /// compiling a 100,000-state chart 5-15 % more time with the same instructions and
  /// allocations.
  @inlinable
  init(
    _ name: String, _ isFinal: Bool, _ fileID: String, _ line: Int,
    _ code: @autoclosure () -> DeclaredCode, hasExits: Bool, yes: () -> [Declaration<Context>],
    no: () -> [Declaration<Context>]
  ) {
    let body = DeclaredBody.yesNo(
      yes: Declaration.nodes(of: yes()), no: Declaration.nodes(of: no()), hasExits: hasExits)
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .condition, body: body,
      code: code())
  }
}
