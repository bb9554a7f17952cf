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
      case invalidStepLimit = "invalid step limit"
      case timedOut = "timed out"
      case parked = "parked"
    }

    /// A state's code, or a dispatch's merge, threw ``RunError/underlyingError``.
    public static let thrown = Kind(code: .thrown)
    /// A multiple condition decided ``RunError/unmatchedKey``, which has no exit and the
    /// state has no default.
    public static let unmatchedKey = Kind(code: .unmatchedKey)
    /// The run was about to enter more states than its step limit allows.
    public static let stepLimitExceeded = Kind(code: .stepLimitExceeded)
    /// The run's task was cancelled before the run ended.
    ///
    /// Whether a run was cancelled is a fact about the run, not about an error's type: a
    /// run whose task is cancelled before the run ends ends with this kind, whatever its
    /// states do next. The run checks at every state boundary, including after its last
    /// state returns:
    ///
    /// - cancelled between two states, the run stops before entering the next one, and
    ///   ``RunError/state`` is that next state (not in ``RunError/path``);
    /// - cancelled while a state runs, the run stops when the state returns, and
    ///   ``RunError/state`` is that state (in ``RunError/path``), even when it was the last
    ///   state and returned normally;
    /// - if that state threw, ``RunError/underlyingError`` is what it threw: the
    ///   `CancellationError` of `Task.sleep` or `Task.checkCancellation()`, an error of its
    ///   own, or the ``RunError`` of another chart's run it awaited.
    ///
    /// Conversely, an error thrown in a run nobody cancelled is ``thrown``, even a
    /// `CancellationError`. A dispatch's branches run in child tasks of the run's task, so
    /// cancelling the run cancels them; when a branch fails and the dispatch cancels its
    /// siblings, the run reports that branch's failure, not a cancellation, unless the
    /// run's own task was cancelled too.
    ///
    /// A synchronous run (``Flowchart/runSynchronously(with:stepLimit:)``) follows the same
    /// rule where it can see its task, that is when it is called from a task, at the
    /// boundaries where checking costs nothing measurable: before its first state, at each
    /// dispatch, at the end of each flow (after the last state returns), when a state
    /// throws, and at least once every 4,096 states. A synchronous state's code that
    /// cancels the run's task is therefore noticed at one of those, not necessarily at the
    /// next boundary.
    public static let cancelled = Kind(code: .cancelled)
    /// ``Flowchart/runSynchronously(with:stepLimit:)`` was called on a chart with
    /// asynchronous states; ``RunError/state`` is the first of them.
    public static let asynchronousState = Kind(code: .asynchronousState)
    /// A run was asked to start at a name that names no state, or several, or a state
    /// inside a dispatch branch.
    public static let unknownStartState = Kind(code: .unknownStartState)
    /// A run was given a negative step limit; no state ran. ``RunError/state`` is `nil`.
    public static let invalidStepLimit = Kind(code: .invalidStepLimit)
    /// A state with a timeout (``FlowComponent/timeout(_:fileID:line:)``) did not finish
    /// within it, on its last attempt, and no catch route took the error.
    /// ``RunError/underlyingError`` is the ``StateTimeoutError``.
    public static let timedOut = Kind(code: .timedOut)
    /// Not an error: what the top-level flow of a live run throws to unwind its task when it
    /// parks at a waiting state (see `ParkedFlow.swift`). Never reaches a user.
    static let parked = Kind(code: .parked)

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
  /// The state where the run stopped; `nil` only for ``Kind/unknownStartState`` and
  /// ``Kind/invalidStepLimit``.
  public var state: StateID? { storage.state }
  /// The name of ``state``, the unknown name for ``Kind/unknownStartState``, or empty for
  /// ``Kind/invalidStepLimit``.
  public var stateName: String { storage.stateName }
  /// The states entered before the run stopped, oldest first (the most recent
  /// ``RunResult/pathCapacity`` of them). Includes ``state`` when the state itself
  /// failed; excludes it when the run stopped before entering it.
  public var path: [StateID] { storage.path }
  /// The names of the states in ``path``, in the same order: what a message or a log
  /// shows, without looking each state up in the chart.
  public var pathNames: [String] { storage.pathNames }
  /// The error thrown by the state's code (or a dispatch's merge), for ``Kind/thrown``;
  /// for ``Kind/cancelled``, what the state threw after the run was cancelled, if it threw.
  public var underlyingError: (any Error)? { storage.underlyingError }
  /// The key that had no exit, for ``Kind/unmatchedKey``.
  public var unmatchedKey: (any Hashable & Sendable)? { storage.unmatchedKey }

  /// A full account: where the run stopped, why, and the path that led there.
  public var description: String {
    let names = storage.pathNames
    let route =
      names.isEmpty ? "(no state entered)" : names.map(DisplayText.name).joined(separator: " → ")
    return "\(storage.reason)\nPath: \(route)"
  }

  init(
    _ kind: Kind, state: StateID?, stateName: String, path: [StateID], pathNames: [String],
    underlyingError: (any Error)? = nil, unmatchedKey: (any Hashable & Sendable)? = nil,
    reason: String
  ) {
    storage = Storage(
      kind: kind, state: state, stateName: stateName, path: path,
      underlyingError: underlyingError, unmatchedKey: unmatchedKey,
      reason: reason,
      pathNames: pathNames)
  }

  /// Why the run stopped, without the path.
  var reason: String { storage.reason }

  /// What a live run's top-level flow throws when it parks: one value, so that parking
  /// allocates nothing.
  @usableFromInline
  static let parking = RunError(
    .parked, state: nil, stateName: "", path: [], pathNames: [],
    reason: "The run parked at a waiting state.")

  /// Whether this is ``parking``.
  @usableFromInline
  var isParking: Bool { kind == .parked }

  /// The same error with `prefix` before its path, keeping the most recent `capacity`
  /// states: how a branch's error gains the path of the flows that dispatched it.
  func prefixed(by prefix: [StateID], names: [String], capacity: Int) -> RunError {
    let path = Array((prefix + path).suffix(capacity))
    let pathNames = Array((names + storage.pathNames).suffix(capacity))
    return RunError(
      kind, state: state, stateName: stateName, path: path, pathNames: pathNames,
      underlyingError: underlyingError, unmatchedKey: unmatchedKey, reason: storage.reason)
  }

  /// The same error as a cancellation, its cause kept: how a failure in a run whose task
  /// was cancelled is reported.
  func cancelled(reason: String) -> RunError {
    RunError(
      .cancelled, state: state, stateName: stateName, path: path,
      pathNames: storage.pathNames, underlyingError: underlyingError,
      unmatchedKey: unmatchedKey, reason: reason)
  }
}

/// An error of the package's own that a state's code throws (a waiting state outside a live
/// run; the tool's stand-in for code it does not have), whose description is a clause that
/// says what went wrong and what to do.
///
/// A ``RunError`` tells such an error as the cause itself, `The run stopped at waiting state
/// 'Approval' (…): it waits for a value sent from outside: …`, rather than as something a
/// user's code threw, `…: it threw <error>.`, which is how it tells every other error. The
/// description is a clause: lowercase first, no closing period.
package protocol SelfExplainingError: Error, CustomStringConvertible {}

extension RunError.Kind {
  /// The kind whose ``description`` is `description`, as a snapshot writes it; `nil` for a
  /// description no kind has, and for ``parked``, which never ends a run.
  init?(described description: String) {
    guard let code = Code(rawValue: description), code != .parked else { return nil }
    self.init(code: code)
  }
}
