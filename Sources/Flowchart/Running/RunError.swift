/// Why a run ended without reaching a final state.
///
/// The error names the state where the run stopped, the path that led there and the
/// cause:
///
/// ```
/// The run stopped at action 'Upload' (App/Sync.swift:42): it threw URLError(.timedOut).
/// Path: Start → Has changes? → Upload
/// ```
///
/// Switch over ``kind`` to react to a cause, and read ``underlyingError`` or
/// ``unmatchedKey`` for its details.
public struct RunError: Error, CustomStringConvertible {
  /// The causes of a failed run. New kinds may be added in later versions.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private let code: Code

    private enum Code: String, Sendable {
      case thrown = "thrown error"
      case unmatchedKey = "key without exit"
      case stepLimitExceeded = "step limit exceeded"
      case cancelled = "cancelled"
      case asynchronousState = "asynchronous state in a synchronous run"
      case unknownStartState = "unknown start state"
    }

    /// A state's code, or a dispatch's merge, threw ``RunError/underlyingError``.
    public static let thrown = Kind(code: .thrown)
    /// A multiple condition decided ``RunError/unmatchedKey``, which has no exit and the
    /// state has no default.
    public static let unmatchedKey = Kind(code: .unmatchedKey)
    /// The run was about to enter more states than its step limit allows.
    public static let stepLimitExceeded = Kind(code: .stepLimitExceeded)
    /// The run's task was cancelled. ``RunError/state`` is the state the run was about
    /// to enter, or the asynchronous state that stopped when cancelled.
    public static let cancelled = Kind(code: .cancelled)
    /// ``Flowchart/runSynchronously(with:startingAt:stepLimit:)-(_,StateID?,_)`` was called on a chart
    /// with asynchronous states; ``RunError/state`` is the first of them.
    public static let asynchronousState = Kind(code: .asynchronousState)
    /// A run was asked to start at a name that names no state, or several, or a state
    /// inside a dispatch branch.
    public static let unknownStartState = Kind(code: .unknownStartState)

    /// The cause in words, such as `step limit exceeded`.
    public var description: String { code.rawValue }
  }

  /// The error's fields, in one object: a run error is one word wide, so the run loop,
  /// which must make room for one in every frame that can throw, stays small.
  private final class Storage: Sendable {
    let kind: Kind
    let state: StateID?
    let stateName: String
    let path: [StateID]
    let underlyingError: (any Error)?
    let unmatchedKey: (any Hashable & Sendable)?
    let reason: String
    let pathNames: [String]

    init(
      kind: Kind, state: StateID?, stateName: String, path: [StateID],
      underlyingError: (any Error)?, unmatchedKey: (any Hashable & Sendable)?, reason: String,
      pathNames: [String]
    ) {
      self.kind = kind
      self.state = state
      self.stateName = stateName
      self.path = path
      self.underlyingError = underlyingError
      self.unmatchedKey = unmatchedKey
      self.reason = reason
      self.pathNames = pathNames
    }
  }

  private let storage: Storage

  /// What ended the run.
  public var kind: Kind { storage.kind }
  /// The state where the run stopped; `nil` only for ``Kind/unknownStartState``.
  public var state: StateID? { storage.state }
  /// The name of ``state``, or the unknown name for ``Kind/unknownStartState``.
  public var stateName: String { storage.stateName }
  /// The states entered before the run stopped, oldest first (the most recent
  /// ``RunResult/pathCapacity`` of them). Includes ``state`` when the state itself
  /// failed; excludes it when the run stopped before entering it.
  public var path: [StateID] { storage.path }
  /// The error thrown by the state's code, for ``Kind/thrown``; the `CancellationError`
  /// an asynchronous state threw, if any, for ``Kind/cancelled``.
  public var underlyingError: (any Error)? { storage.underlyingError }
  /// The key that had no exit, for ``Kind/unmatchedKey``.
  public var unmatchedKey: (any Hashable & Sendable)? { storage.unmatchedKey }

  /// A full account: where the run stopped, why, and the path that led there.
  public var description: String {
    let names = storage.pathNames
    let route = names.isEmpty ? "(no state entered)" : names.joined(separator: " → ")
    return "\(storage.reason)\nPath: \(route)"
  }

  init(
    _ kind: Kind, state: StateID?, stateName: String, path: [StateID], pathNames: [String],
    underlyingError: (any Error)? = nil, unmatchedKey: (any Hashable & Sendable)? = nil,
    reason: String
  ) {
    storage = Storage(
      kind: kind, state: state, stateName: stateName, path: path,
      underlyingError: underlyingError, unmatchedKey: unmatchedKey, reason: reason,
      pathNames: pathNames)
  }

  /// The same error with `prefix` before its path: how a branch's error gains the path of
  /// the flow that dispatched it.
  func prefixed(by prefix: [StateID], names: [String]) -> RunError {
    RunError(
      kind, state: state, stateName: stateName, path: prefix + path,
      pathNames: names + storage.pathNames, underlyingError: underlyingError,
      unmatchedKey: unmatchedKey, reason: storage.reason)
  }
}
