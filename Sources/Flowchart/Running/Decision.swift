/// What the last state of a run decided: the second half of the pair a run ends with.
///
/// A final condition decides ``yes`` or ``no``; a final multiple condition decides a
/// ``key(_:)``; a final action or dispatch is ``done``. Together with the final state,
/// the decision says which way the flowchart came out, the way JASWorkflow mapped a final
/// node's result to an outcome.
public enum Decision: Sendable, Equatable, CustomStringConvertible {
  /// A final condition decided `true`.
  case yes
  /// A final condition decided `false`.
  case no
  /// A final multiple condition decided this key.
  case key(any Hashable & Sendable)
  /// A final action or dispatch finished its work.
  case done

  /// The decided key as a `Key`, or `nil` when the decision is not a key of that type.
  ///
  /// ```swift
  /// if let grade = result.decision.key(as: Grade.self) { … }
  /// ```
  public func key<Key: Hashable & Sendable>(as type: Key.Type = Key.self) -> Key? {
    guard case .key(let key) = self else { return nil }
    return key as? Key
  }

  /// Whether two decisions are the same; keys compare as `AnyHashable` does.
  public static func == (lhs: Decision, rhs: Decision) -> Bool {
    switch (lhs, rhs) {
    case (.yes, .yes), (.no, .no), (.done, .done): true
    case (.key(let left), .key(let right)): AnyHashable(left) == AnyHashable(right)
    default: false
    }
  }

  /// `yes`, `no`, `done`, or `key(…)` with the key as `String(describing:)` prints it.
  public var description: String {
    switch self {
    case .yes: "yes"
    case .no: "no"
    case .done: "done"
    case .key(let key): "key(\(key))"
    }
  }
}
