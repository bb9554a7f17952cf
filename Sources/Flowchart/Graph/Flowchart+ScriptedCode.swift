// Scripting: the code a forced state runs before it decides: a script's replacement, the
// state's own code (called through its node's call sites, `OriginalCode`), or nothing; and
// the readings of a code's result the scripted and observed wrappers share.

extension Flowchart {
  /// What a forced state runs before it decides: a replacement, its own code, or nothing.
  func forcedEffect(
    for index: Int, node: Node, _ force: ForcedDecision
  ) throws(ScriptProblem) -> ForcedEffect<Context> {
    if let replacement = force.replacement {
      if let run = replacement as? @Sendable (inout Context) throws -> Void {
        return .synchronous(run)
      }
      if let run = replacement as? @Sendable (inout Context) async throws -> Void {
        return .asynchronous(run)
      }
      let record = graph.records[index]
      throw ScriptProblem(
        stateName: record.name,
        message:
          "A script replaces the code of \(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location)) with a closure of type \(type(of: replacement)), which is not code over the chart's context, \(Context.self). Give a closure (inout \(Context.self)) throws -> Void."
      )
    }
    guard force.runsCode else { return .synchronous(nil) }
    if node.kind == .select || node.kind == .asyncSelect {
      // The state's own decision runs for its effects; a key without an exit is no error
      // there, since the forced key replaces it.
      guard let selector = exitSelector(of: index) else { return .synchronous(nil) }
      if selector.node.kind.suspends {
        return .asynchronous { context in
          do { _ = try await selector.call(&context) } catch is UnmatchedKey {}
        }
      }
      return .synchronous { context in
        do { _ = try selector.callSynchronously(&context) } catch is UnmatchedKey {}
      }
    }
    // The state's own code, called through its node's call sites.
    let original = OriginalCode(node: node, owner: graph)
    if node.kind.suspends {
      return .asynchronous { context in _ = try await original.call(&context) }
    }
    return .synchronous { context in _ = try original.callSynchronously(&context) }
  }
}

/// A state's code as a node calls it, for a box of a scripted chart that wraps it: the box
/// calls the code through the node's call sites (``Node/callSynchronously(_:)`` for a kind
/// that does not suspend, so that a scripted synchronous chart still runs synchronously,
/// ``Node/call(_:)`` otherwise), as the loops do, and never calls a box's closure itself.
///
/// `@unchecked Sendable` because ``node`` holds an unmanaged pointer to the code's box: both
/// properties are `let`s set in `init`, the box is an immutable `Sendable` class, and
/// ``owner`` keeps it alive for as long as this value lives (the original chart's graph,
/// which owns every box its nodes point to, or the box itself, for an exit selector).
struct OriginalCode: @unchecked Sendable {
  /// The node whose code the wrapper calls.
  let node: Node
  /// What keeps the box ``node`` points to alive.
  let owner: any AnyObject & Sendable

  /// Calls the code of a node whose kind does not suspend.
  func callSynchronously<Context: Sendable>(_ context: inout Context) throws -> CodeResult {
    try node.callSynchronously(&context)
  }

  /// Calls the code of the node, synchronous or asynchronous.
  func call<Context: Sendable>(_ context: inout Context) async throws -> CodeResult {
    try await node.call(&context)
  }
}

/// What a forced state runs before it decides: synchronous code (none when `nil`), or
/// asynchronous code, which makes the forced state asynchronous.
enum ForcedEffect<Context: Sendable> {
  case synchronous((@Sendable (inout Context) throws -> Void)?)
  case asynchronous(@Sendable (inout Context) async throws -> Void)
}

extension CodeResult {
  /// A condition's answer.
  ///
  /// - Precondition: the code is a condition's.
  var answer: Bool {
    switch self {
    case .outcome(.yes): true
    case .outcome(.no): false
    case .outcome(.next), .outcome(.selected), .key:
      preconditionFailure("a condition answers yes or no")
    }
  }

  /// What a non-final multiple condition selected: a state, or the position of an exit for
  /// an exit selector (see ``Flowchart/exitSelector(of:)``).
  ///
  /// - Precondition: the code is a non-final multiple condition's.
  var selected: Int32 {
    guard case .outcome(.selected(let selected)) = self else {
      preconditionFailure("a non-final multiple condition selects")
    }
    return selected
  }

  /// What a final multiple condition decided.
  ///
  /// - Precondition: the code is a final multiple condition's.
  var decision: Decision {
    guard case .key(let decision) = self else {
      preconditionFailure("a final multiple condition decides a key")
    }
    return decision
  }
}

extension Decision {
  /// The key of a final multiple condition's decision.
  ///
  /// - Precondition: the decision is a key.
  var decidedKey: any Hashable & Sendable {
    guard let key else { preconditionFailure("a final multiple condition decides a key") }
    return key
  }
}
