/// What the last state of a run decided: the second half of the pair a run ends with.
///
/// A final condition decides ``yes`` or ``no``; a final multiple condition decides a
/// ``key(_:)``; a final action or dispatch is ``done``. Together with the final state,
/// the decision says which way the flowchart came out, the way JASWorkflow mapped a final
/// node's result to an outcome:
///
/// ```swift
/// switch (result.finalStateName, result.decision) {
/// case ("Do sit-ups", .done): .healthy
/// case ("Injured?", .yes): .inconclusive
/// case ("Injured?", .no): .unhealthy
/// default: nil
/// }
/// ```
///
/// Later versions add decisions for new kinds of state, so compare with the static
/// members (as above) rather than switching over every decision.
public struct Decision: Sendable, Hashable, CustomStringConvertible {
  @usableFromInline
  enum Code: Sendable {
    case yes, no, done
    /// In a box, so that a decision is one word: copying one (a subflow's inner run ends
    /// with one at each visit) is a retain at most, not a call through an existential's
    /// value witnesses.
    case key(KeyBox)
  }

  /// A decided key.
  @usableFromInline
  final class KeyBox: Sendable {
    let key: any Hashable & Sendable
    init(_ key: any Hashable & Sendable) { self.key = key }
  }

  @usableFromInline let code: Code

  @inlinable
  init(code: Code) { self.code = code }

  // Computed and inlinable rather than stored: a run ends with one of these, which then
  // costs no call to a global's accessor.

  /// A final condition decided `true`.
  @inlinable public static var yes: Decision { Decision(code: .yes) }
  /// A final condition decided `false`.
  @inlinable public static var no: Decision { Decision(code: .no) }
  /// A final action or dispatch finished its work.
  @inlinable public static var done: Decision { Decision(code: .done) }

  /// Whether this is ``yes``, without the general comparison of keys.
  @inlinable var isYes: Bool {
    if case .yes = code { return true }
    return false
  }

  /// Whether this is ``no``, without the general comparison of keys.
  @inlinable var isNo: Bool {
    if case .no = code { return true }
    return false
  }

  /// A final multiple condition decided `key`.
  public static func key(_ key: any Hashable & Sendable) -> Decision {
    Decision(code: .key(KeyBox(key)))
  }

  /// The decided key, for a multiple condition's decision; `nil` for any other decision.
  public var key: (any Hashable & Sendable)? {
    if case .key(let box) = code { return box.key }
    return nil
  }

  /// The decided key as a `Key`, or `nil` when the decision is not a key of that type.
  ///
  /// ```swift
  /// if let grade = result.decision.key(as: Grade.self) { … }
  /// ```
  public func key<Key: Hashable & Sendable>(as type: Key.Type = Key.self) -> Key? {
    key as? Key
  }

  /// Whether two decisions are the same; keys compare as `AnyHashable` does.
  public static func == (lhs: Decision, rhs: Decision) -> Bool {
    switch (lhs.code, rhs.code) {
    case (.yes, .yes), (.no, .no), (.done, .done): true
    case (.key(let left), .key(let right)): AnyHashable(left.key) == AnyHashable(right.key)
    case (.yes, _), (.no, _), (.done, _), (.key, _): false
    }
  }

  /// Hashes the decision, a key as `AnyHashable` does.
  public func hash(into hasher: inout Hasher) {
    switch code {
    case .yes: hasher.combine(0)
    case .no: hasher.combine(1)
    case .done: hasher.combine(2)
    case .key(let box): hasher.combine(AnyHashable(box.key))
    }
  }

  /// `yes`, `no`, `done`, or `key(…)` with the key shown as the printed tree shows it (an
  /// `Optional` key as its wrapped value, an ambiguous one as a string literal).
  public var description: String {
    switch code {
    case .yes: "yes"
    case .no: "no"
    case .done: "done"
    case .key(let box): "key(\(DisplayText.key(box.key)))"
    }
  }
}
