extension Wait {
  /// Declares a state that waits for a value of type `Input`, applies it, then decides
  /// yes or no: "wait for the user's answer, then branch on it" as one state.
  ///
  /// ```swift
  /// Wait("Approved?", for: Bool.self) { order, approved in
  ///   order.isApproved = approved
  ///   return approved
  /// } yes: {
  ///   Action("Ship") { $0.ship() }
  /// } no: {
  ///   Action("Refund") { $0.refund() }
  /// }
  /// ```
  ///
  /// It waits, takes its value and reports ``RunEvent/Kind/waitingForInput`` as the
  /// action-like ``Wait`` does, then follows its exits as a ``Condition`` does. Printed `W`,
  /// with `yes` and `no` arrows.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results, and the name
  ///     ``RunHandle/send(_:to:)-(_,String)`` addresses; it must then be unique.
  ///   - type: The type of the value the state waits for; leave it out when the closure
  ///     names it (`{ (order: inout Order, approved: Bool) in … }`).
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - decide: Applies the value to the run's context and returns `true` to follow
  ///     `yes`, `false` to follow `no`; an error it throws ends the run.
  ///   - yes: The states to run when the decision is `true`.
  ///   - no: The states to run when the decision is `false`.
  public init(
    _ name: String,
    for type: Input.Type = Input.self,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context, Input) throws -> Bool,
    @FlowBuilder<Context> yes: () -> [Declaration<Context>],
    @FlowBuilder<Context> no: () -> [Declaration<Context>]
  ) {
    let slot = InputSlot(inputType: Input.self, stateName: name) { $0 is Input }
    declaration = .state(
      name, isFinal: false, fileID: fileID, line: line, kind: .waiting,
      body: .yesNo(yes: yes().map { $0.node }, no: no().map { $0.node }, hasExits: true),
      code: DeclaredCode(
        .asyncCondition,
        AsyncConditionBox { context in
          let value = try await slot.receive()
          guard let input = value as? Input else { throw slot.mismatch(value) }
          return try decide(&context, input)
        }),
      attachment: slot)
  }

  /// Declares a state that waits for a value of type `Input`, applies it, then picks the
  /// exit for a key, as a ``MultipleCondition`` does.
  ///
  /// ```swift
  /// Wait("Choice", for: Choice.self) { order, choice in
  ///   order.choice = choice
  ///   return choice
  /// } exits: {
  ///   Case(Choice.pickUp) { Action("Hold at the desk") { _ in } }
  ///   Case(Choice.deliver) { Action("Send the courier") { _ in } }
  /// }
  /// ```
  ///
  /// A key without a ``Case`` and no ``Default`` fails the run, as for a multiple
  /// condition. Printed `W`, with one arrow per key.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results, and the name
  ///     ``RunHandle/send(_:to:)-(_,String)`` addresses; it must then be unique.
  ///   - type: The type of the value the state waits for; leave it out when the closure
  ///     names it (`{ (order: inout Order, approved: Bool) in … }`).
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - select: Applies the value to the run's context and returns the key whose exit the
  ///     run follows; an error it throws ends the run.
  ///   - exits: The ``Case`` exits, in the order they are printed, and at most one
  ///     ``Default``.
  public init<Key: Hashable & Sendable>(
    _ name: String,
    for type: Input.Type = Input.self,
    fileID: String = #fileID,
    line: Int = #line,
    _ select: @escaping @Sendable (inout Context, Input) throws -> Key,
    @ExitBuilder<Context, Key> exits: () -> [KeyedExit<Context, Key>]
  ) {
    let slot = InputSlot(inputType: Input.self, stateName: name) { $0 is Input }
    let decision = KeyedDecision(
      KeyedDecision.Decide<Context, Key>.asynchronous { context in
        let value = try await slot.receive()
        guard let input = value as? Input else { throw slot.mismatch(value) }
        return try select(&context, input)
      }, exits: exits())
    declaration = .state(
      name, isFinal: false, fileID: fileID, line: line, kind: .waiting,
      body: .keyed(decision, hasExits: true), attachment: slot)
  }
}
