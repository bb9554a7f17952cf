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

  /// What ended the run.
  public let kind: Kind
  /// The state where the run stopped; `nil` only for ``Kind/unknownStartState``.
  public let state: StateID?
  /// The name of ``state``, or the unknown name for ``Kind/unknownStartState``.
  public let stateName: String
  /// The states entered before the run stopped, oldest first (the most recent
  /// ``RunResult/pathCapacity`` of them). Includes ``state`` when the state itself
  /// failed; excludes it when the run stopped before entering it.
  public let path: [StateID]
  /// The error thrown by the state's code, for ``Kind/thrown``; the `CancellationError`
  /// an asynchronous state threw, if any, for ``Kind/cancelled``.
  public let underlyingError: (any Error)?
  /// The key that had no exit, for ``Kind/unmatchedKey``.
  public let unmatchedKey: (any Hashable & Sendable)?
  /// The first line of ``description``: where the run stopped and why.
  let reason: String
  /// The names of ``path``, for ``description``.
  let pathNames: [String]

  /// A full account: where the run stopped, why, and the path that led there.
  public var description: String {
    let route = pathNames.isEmpty ? "(no state entered)" : pathNames.joined(separator: " → ")
    return "\(reason)\nPath: \(route)"
  }

  init(
    _ kind: Kind, state: StateID?, stateName: String, path: [StateID], pathNames: [String],
    underlyingError: (any Error)? = nil, unmatchedKey: (any Hashable & Sendable)? = nil,
    reason: String
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

  /// The same error with `prefix` before its path: how a branch's error gains the path of
  /// the flow that dispatched it.
  func prefixed(by prefix: [StateID], names: [String]) -> RunError {
    RunError(
      kind, state: state, stateName: stateName, path: prefix + path, pathNames: names + pathNames,
      underlyingError: underlyingError, unmatchedKey: unmatchedKey, reason: reason)
  }
}
