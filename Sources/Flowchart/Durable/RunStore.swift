/// Where a durable run stands, as a store lists it: what a server asks when it looks for the
/// runs that wait for input at a state, or the ones that failed.
public enum RunStatus: Hashable, Sendable, CustomStringConvertible {
  /// A flow of the run is between states or running a state's code. A run saved with this
  /// status by a process that then died is resumed from its last boundary: the state whose
  /// code was running runs again.
  case running
  /// The run was paused and stands at a boundary.
  case paused
  /// The run waits for a value sent to the waiting state `state` (a ``Wait``).
  case waitingForInput(state: String)
  /// The run waits until the wall-clock time `until`, at the state `state`.
  case waitingUntil(WallClockTime, state: String)
  /// The run failed, at `state` when a state failed it, for `reason` (the error's message).
  case failed(state: String?, reason: String)
  /// The run was cancelled.
  case cancelled
  /// The run finished.
  case finished

  /// Whether the run has ended: failed, cancelled or finished. A failed run can still be
  /// retried.
  public var hasEnded: Bool {
    switch self {
    case .running, .paused, .waitingForInput, .waitingUntil: false
    case .failed, .cancelled, .finished: true
    }
  }

  /// The status's name, as stored and as a ``RunFilter`` matches it: `running`, `paused`,
  /// `waitingForInput`, `waitingUntil`, `failed`, `cancelled` or `finished`.
  public var name: String {
    switch self {
    case .running: "running"
    case .paused: "paused"
    case .waitingForInput: "waitingForInput"
    case .waitingUntil: "waitingUntil"
    case .failed: "failed"
    case .cancelled: "cancelled"
    case .finished: "finished"
    }
  }

  /// The state the status names: where the run waits, or the state that failed it.
  public var state: String? {
    switch self {
    case .waitingForInput(let state), .waitingUntil(_, let state): state
    case .failed(let state, _): state
    case .running, .paused, .cancelled, .finished: nil
    }
  }

  /// The status in words: `waiting for input at 'Approve'`, `failed at 'Charge': …`.
  public var description: String {
    switch self {
    case .running: "running"
    case .paused: "paused"
    case .waitingForInput(let state): "waiting for input at \(DisplayText.quoted(name: state))"
    case .waitingUntil(let time, let state):
      "waiting at \(DisplayText.quoted(name: state)) until \(time)"
    case .failed(let state?, let reason): "failed at \(DisplayText.quoted(name: state)): \(reason)"
    case .failed(nil, let reason): "failed: \(reason)"
    case .cancelled: "cancelled"
    case .finished: "finished"
    }
  }
}

extension RunStatus: Codable {
  private enum CodingKeys: String, CodingKey {
    case status, state, until, reason
  }

  /// Decodes `{"status": "waitingForInput", "state": "Approve"}` and its siblings (see
  /// ``encode(to:)``).
  ///
  /// - Throws: `DecodingError` when the status is not one of the names ``name`` lists, or a
  ///   key it needs is missing.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let name = try container.decode(String.self, forKey: .status)
    switch name {
    case "running": self = .running
    case "paused": self = .paused
    case "waitingForInput":
      self = .waitingForInput(state: try container.decode(String.self, forKey: .state))
    case "waitingUntil":
      self = .waitingUntil(
        try container.decode(WallClockTime.self, forKey: .until),
        state: try container.decode(String.self, forKey: .state))
    case "failed":
      self = .failed(
        state: try container.decodeIfPresent(String.self, forKey: .state),
        reason: try container.decode(String.self, forKey: .reason))
    case "cancelled": self = .cancelled
    case "finished": self = .finished
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .status, in: container,
        debugDescription:
          "'\(name)' is not a run status; one of running, paused, waitingForInput, waitingUntil, failed, cancelled, finished was expected."
      )
    }
  }

  /// Encodes the status as an object: its ``name`` under `status`, and `state`, `until` and
  /// `reason` where it has them.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .status)
    switch self {
    case .running, .paused, .cancelled, .finished: break
    case .waitingForInput(let state):
      try container.encode(state, forKey: .state)
    case .waitingUntil(let time, let state):
      try container.encode(time, forKey: .until)
      try container.encode(state, forKey: .state)
    case .failed(let state, let reason):
      try container.encodeIfPresent(state, forKey: .state)
      try container.encode(reason, forKey: .reason)
    }
  }
}

/// What a store tells about a run without reading its snapshot: its id, its status, which
/// chart it runs and when it was last saved.
public struct RunSummary: Hashable, Sendable, Codable {
  /// The run's id.
  public var id: RunID
  /// Where the run stood when it was last saved.
  public var status: RunStatus
  /// The identity of the chart the run runs: the one its owner gave, or a chart file's path
  /// and name.
  public var chart: String
  /// The chart's structural fingerprint when the run was saved (its states, their kinds,
  /// names and exits, not its code).
  public var fingerprint: String
  /// When the run was last saved.
  public var updated: WallClockTime

  /// A summary of the run `id`, saved at `updated`.
  public init(
    id: RunID, status: RunStatus, chart: String, fingerprint: String, updated: WallClockTime
  ) {
    self.id = id
    self.status = status
    self.chart = chart
    self.fingerprint = fingerprint
    self.updated = updated
  }
}

/// A run as a store keeps it: its summary and its snapshot, encoded (JSON by default).
public struct StoredRun: Hashable, Sendable {
  /// The run's id, status, chart and time of saving.
  public var summary: RunSummary
  /// The run's snapshot, encoded.
  public var snapshot: [UInt8]

  /// A stored run of `summary` and the encoded `snapshot`.
  public init(summary: RunSummary, snapshot: [UInt8]) {
    self.summary = summary
    self.snapshot = snapshot
  }

  /// The run's id.
  public var id: RunID { summary.id }
}

/// Which runs a store lists: every run, or those that match each condition given.
public struct RunFilter: Hashable, Sendable {
  /// The names of the statuses to list (``RunStatus/name``); `nil` lists every status.
  public var statuses: Set<String>?
  /// The state the status names (where a run waits, or the state that failed it); `nil`
  /// lists runs at any state.
  public var state: String?
  /// The chart's identity; `nil` lists runs of every chart.
  public var chart: String?

  /// A filter of the conditions given; with none, every run.
  public init(statuses: Set<String>? = nil, state: String? = nil, chart: String? = nil) {
    self.statuses = statuses
    self.state = state
    self.chart = chart
  }

  /// Every run.
  public static let all = RunFilter()

  /// The runs that wait for input at the waiting state `state`.
  public static func waitingForInput(at state: String) -> RunFilter {
    RunFilter(statuses: ["waitingForInput"], state: state)
  }

  /// Whether `summary` matches every condition of the filter.
  public func matches(_ summary: RunSummary) -> Bool {
    if let statuses, !statuses.contains(summary.status.name) { return false }
    if let state, summary.status.state != state { return false }
    if let chart, summary.chart != chart { return false }
    return true
  }
}

/// What a store lists: the summaries of the runs that match a filter, and the entries it
/// holds but could not read (a damaged or foreign file, a row of a newer format).
///
/// ``RunStore/list(matching:)`` leaves unreadable entries out, so that one damaged run does
/// not hide the others; ``RunStore/listing(matching:)`` returns them too, for a tool or an
/// operator who must know.
public struct RunListing: Hashable, Sendable {
  /// The summaries of the runs that match the filter, in the order of their ids.
  public var runs: [RunSummary]
  /// The entries the store could not read, in the order of their locations.
  public var problems: [RunStoreProblem]

  /// A listing of `runs` and `problems`.
  public init(runs: [RunSummary], problems: [RunStoreProblem] = []) {
    self.runs = runs
    self.problems = problems
  }
}

/// An entry a store holds but could not read, and why: what a listing reports in place of
/// its run.
public struct RunStoreProblem: Hashable, Sendable, CustomStringConvertible {
  /// Where the entry is: a file's path, or a database's path and a row's id.
  public var location: String
  /// What is wrong and what to do, as a sentence.
  public var message: String

  /// The problem `message` with the entry at `location`.
  public init(location: String, message: String) {
    self.location = location
    self.message = message
  }

  /// `location: message`.
  public var description: String { "\(location): \(message)" }
}

/// Keeps durable runs by id, so that a run can be saved in one process and loaded in
/// another, and a server can ask which runs wait where.
///
/// A store keeps one ``StoredRun`` per ``RunID``: saving a run replaces what was saved under
/// its id before, all at once (a reader, or a process started after a crash, finds either
/// the previous run or the new one, never a mix). FlowchartStores has two: a directory of
/// files, and SQLite. Implement it for your own storage; `load` of an id never saved is
/// `nil`, not an error, and so is `delete` of one.
public protocol RunStore: Sendable {
  /// Saves `run`, replacing the run saved under its id, atomically.
  func save(_ run: StoredRun) async throws

  /// The run saved under `id`, or `nil` when there is none.
  func load(_ id: RunID) async throws -> StoredRun?

  /// The summaries of the runs that match `filter`, in the order of their ids.
  ///
  /// An entry the store cannot read (a damaged file) is left out; ``listing(matching:)``
  /// reports it.
  func list(matching filter: RunFilter) async throws -> [RunSummary]

  /// The summaries of the runs that match `filter`, in the order of their ids, and the
  /// entries the store holds but could not read. The default lists with
  /// ``list(matching:)`` and reports no problem: a store that can hold unreadable entries
  /// implements it.
  func listing(matching filter: RunFilter) async throws -> RunListing

  /// Removes the run saved under `id`; returns whether there was one.
  @discardableResult
  func delete(_ id: RunID) async throws -> Bool
}

extension RunStore {
  /// The runs ``list(matching:)`` lists, and no problem.
  public func listing(matching filter: RunFilter) async throws -> RunListing {
    RunListing(runs: try await list(matching: filter))
  }

  /// The summaries of every run, in the order of their ids.
  public func list() async throws -> [RunSummary] {
    try await list(matching: .all)
  }
}
