/// A live run as plain data at a state boundary: where its flow stands, its context, the
/// path so far, the values sent to its waiting states and not yet taken, and what
/// identifies its chart. What ``RunHandle/snapshot()`` returns, and what
/// ``Flowchart/start(resuming:chart:migrating:clock:isPaused:isLogged:observer:isolation:)``
/// and ``Flowchart/resume(from:chart:migrating:clock:isolation:)`` go on from, in this
/// process or another.
///
/// A snapshot is `Codable` when the context is. Its format is versioned
/// (``formatVersion``: 3 for a snapshot this version makes; 1 and 2, those of earlier
/// versions, are read and written again as they were) and documented in the "Durable runs"
/// article: JSON by default (with Foundation's `JSONEncoder`), but any encoder works.
/// Decoding checks what
/// it reads (a known format version, the top-level flow first, each branch's parent and
/// index, counts that match, no negative counters, every position named in the table of
/// shapes) and throws a `DecodingError` that says what is wrong; it never traps, whatever
/// the bytes.
///
/// Positions are named by their position keys (``Flowchart/positionKeys``), not by state
/// numbers, so that a snapshot can be resumed on a changed chart whenever its positions
/// still fit (see ``ResumeError``).
public struct RunSnapshot<Context: Sendable>: Sendable {
  /// The format version this version of the package writes: 3. It reads formats 1 and 2
  /// too, those of earlier versions (which read formats 1 and 2 only, and refuse format 3
  /// with an error that names the version).
  public static var currentFormatVersion: Int { 3 }

  /// The format version the snapshot is written in: ``currentFormatVersion`` for a snapshot
  /// made by a run, and the version it was read in for a decoded one (1 for one flow, 2 for
  /// several or a flow in a subflow or a map), which encoding writes again, so that a stored
  /// snapshot read and saved again stays readable by the versions that read it before.
  public let formatVersion: Int
  /// The run's id.
  public let id: RunID
  /// The identity of the chart the run runs, as its owner gave it (empty when none was).
  public let chart: String
  /// The chart's ``Flowchart/structuralFingerprint`` when the snapshot was made.
  public let fingerprint: String
  /// Where the run stood.
  public let status: RunStatus
  /// When the snapshot was made, by the run clock's wall-clock time.
  public let updated: WallClockTime
  /// The run's step limit: the resumed run enters at most this many states in all, those
  /// of ``pathKeys`` included.
  public let stepLimit: Int

  /// Each flow of the run; the top-level flow first (the only one in format 1), each
  /// dispatch branch after the flow that dispatched it.
  let flows: [FlowSnapshot<Context>]
  /// Values sent to waiting states and not yet taken.
  let mailbox: [MailboxEntry]
  /// The shape of every state a position of the snapshot names, by position key.
  let shapes: [String: StateShape]

  init(
    id: RunID, chart: String, fingerprint: String, status: RunStatus, updated: WallClockTime,
    stepLimit: Int, flows: [FlowSnapshot<Context>], mailbox: [MailboxEntry],
    shapes: [String: StateShape], formatVersion: Int
  ) {
    self.formatVersion = formatVersion
    self.id = id
    self.chart = chart
    self.fingerprint = fingerprint
    self.status = status
    self.updated = updated
    self.stepLimit = stepLimit
    self.flows = flows
    self.mailbox = mailbox
    self.shapes = shapes
  }

  /// The top-level flow's context: as it was before the state the run resumes at, or as
  /// the run left it when it finished.
  public var context: Context { flows[0].context }

  /// The position key of the state the top-level flow is at: the state it enters next, the
  /// waiting state it waits at, the dispatch whose branches it waits for, the state it
  /// failed at (which runs again), or its final state; `nil` for a run that failed before
  /// it entered a state.
  public var position: String? { flows[0].position.key }

  /// The position keys of the states the run's dispatch branches stand at (the state each
  /// enters next, waits at, or finished at), by flow, in the order the snapshot holds them;
  /// empty when the top-level flow stands in no dispatch.
  public var branchPositions: [String] { flows.dropFirst().compactMap(\.position.key) }

  /// How many states the run entered.
  public var stepCount: Int { flows[0].stepCount }

  /// The position keys of the states the run entered, oldest first (the most recent
  /// ``RunResult/pathCapacity`` of them).
  public var pathKeys: [String] { flows[0].path }

  /// The position keys of the waiting states that have a value sent and not yet taken.
  public var pendingInputs: [String] { mailbox.map(\.state) }

  /// What a run store lists of the run: its id, status, chart, fingerprint and time.
  public var summary: RunSummary {
    RunSummary(id: id, status: status, chart: chart, fingerprint: fingerprint, updated: updated)
  }

  /// The run as a store keeps it: its ``summary`` and the snapshot encoded by `encode`
  /// (for instance `{ Array(try JSONEncoder().encode($0)) }`; the core has no encoder of
  /// its own).
  public func storedRun(encodedWith encode: (RunSnapshot) throws -> [UInt8]) rethrows -> StoredRun {
    StoredRun(summary: summary, snapshot: try encode(self))
  }
}

/// Where one flow stands in a snapshot.
struct FlowSnapshot<Context: Sendable>: Sendable {
  /// The flow's number: 0 for the top level.
  var flow: Int32
  var position: SnapshotPosition
  /// The flow's context at its position.
  var context: Context
  /// The position keys of the states the flow entered (the kept ones), oldest first.
  var path: [String]
  /// How many states the flow entered in all.
  var stepCount: Int
  /// The attempt the state at the position runs next: 1 at a boundary; above 1 when the
  /// flow is between two attempts of a retried state it entered (its position is
  /// ``SnapshotPosition/entering(_:)``, its path ends with the state, and ``deadline`` is
  /// when the backoff delay ends).
  var attempt: Int = 1
  /// The wall-clock instant the flow waits for, when its position waits for a time
  /// (``SnapshotPosition/waitingUntil(_:)``).
  var deadline: WallClockTime? = nil
  /// The dispatch branch the flow runs; `nil` for the top-level flow.
  var branch: Branch? = nil
  /// The inner run of the subflow the flow stands in, when it stands in one: its position
  /// is then ``SnapshotPosition/entering(_:)`` the subflow (entered, as its path says), and
  /// its context is the one from before the subflow.
  var nested: NestedSnapshot? = nil
  /// The runs of the map the flow stands in, when it stands in one (position and context
  /// as for a subflow's ``nested``).
  var map: MapSnapshot? = nil

  /// A flow's place among the run's flows: which dispatch of which flow it is a branch of.
  struct Branch: Hashable, Sendable {
    /// The number of the flow that dispatched it (whose position is the dispatch).
    var parent: Int32
    /// The dispatch's position key.
    var dispatch: String
    /// The branch's index in the dispatch, in declaration order, from 0.
    var index: Int
  }
}

/// What a flow is doing at its position.
enum SnapshotPosition: Hashable, Sendable {
  /// About to enter the state (at a boundary, or to run again a state that failed).
  case entering(String)
  /// Entered the waiting state, and waits for its value.
  case waitingForInput(String)
  /// Entered the dispatch, whose branches are flows of their own (format 2); the flow's
  /// context is the one from before the dispatch.
  case dispatching(String)
  /// Entered the delay, and waits for its deadline (the flow's
  /// ``FlowSnapshot/deadline``).
  case waitingUntil(String)
  /// Ended at the final state with the decision.
  case finished(String, Decision)
  /// Failed before it entered any state.
  case notEntered

  var isDispatching: Bool {
    if case .dispatching = self { return true }
    return false
  }

  var key: String? {
    switch self {
    case .entering(let key), .waitingForInput(let key), .waitingUntil(let key),
      .dispatching(let key), .finished(let key, _):
      key
    case .notEntered: nil
    }
  }
}

/// A value sent to a waiting state and not yet taken.
struct MailboxEntry: Sendable {
  /// The waiting state's position key.
  var state: String
  var value: Value

  enum Value: Sendable {
    /// The value itself, in a snapshot made in this process.
    case live(any Sendable)
    /// The value as decoded from an encoded snapshot, to decode as the state's type.
    case encoded(SnapshotValue)
  }
}

// MARK: - Codable

extension RunSnapshot: Encodable where Context: Encodable {
  /// Encodes the snapshot in its documented format, of its ``formatVersion``.
  ///
  /// - Throws: An `EncodingError` when a value sent to a waiting state and not yet taken
  ///   is not `Encodable` (the error names the state), or a finished run's key decision is
  ///   neither a `String` nor an `Int`, or the context fails to encode.
  public func encode(to encoder: any Encoder) throws {
    if formatVersion >= 3 {
      try encodeFormat3(to: encoder)
      return
    }
    // Formats 1 and 2, for a snapshot decoded from them.
    // The snapshot's own fields are written as strings, numbers and nested containers, not
    // as nested `Encodable` values (`RunID`, `WallClockTime`, `RunStatus`, `[String]`,
    // `[String: StateShape]`): an encoder such as `JSONEncoder` checks the type of each
    // nested value and makes an encoder for it, which cost the fields of a snapshot of a
    // 1 KiB context nearly half as much as the context. The JSON is the same.
    var container = encoder.container(keyedBy: SnapshotCodingKey.self)
    try container.encode(formatVersion, forKey: .formatVersion)
    try container.encode(id.text, forKey: .id)
    try container.encode(chart, forKey: .chart)
    try container.encode(fingerprint, forKey: .fingerprint)
    var statusContainer = container.nestedContainer(
      keyedBy: SnapshotCodingKey.self, forKey: .status)
    try status.encode(into: &statusContainer)
    try container.encode(updated.description, forKey: .updated)
    try container.encode(stepLimit, forKey: .stepLimit)
    var flowsContainer = container.nestedUnkeyedContainer(forKey: .flows)
    for flow in flows {
      var flowContainer = flowsContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      try flowContainer.encode(flow.flow, forKey: .flow)
      if flow.nested != nil, let key = flow.position.key {
        try flowContainer.encode("inSubflow", forKey: .position)
        try flowContainer.encode(key, forKey: .at)
      } else if flow.map != nil, let key = flow.position.key {
        try flowContainer.encode("inMap", forKey: .position)
        try flowContainer.encode(key, forKey: .at)
      } else {
        try flow.position.encode(into: &flowContainer)
      }
      try flowContainer.encode(flow.context, forKey: .context)
      var pathContainer = flowContainer.nestedUnkeyedContainer(forKey: .path)
      for key in flow.path { try pathContainer.encode(key) }
      try flowContainer.encode(flow.stepCount, forKey: .stepCount)
      try flowContainer.encode(flow.attempt, forKey: .attempt)
      try flowContainer.encodeIfPresent(flow.deadline?.description, forKey: .deadline)
      if let branch = flow.branch {
        try flowContainer.encode(branch.parent, forKey: .parent)
        try flowContainer.encode(branch.dispatch, forKey: .dispatch)
        try flowContainer.encode(branch.index, forKey: .branch)
      }
      if let nested = flow.nested, let key = flow.position.key {
        var nestedContainer = flowContainer.nestedContainer(
          keyedBy: SnapshotCodingKey.self, forKey: .subflow)
        try nested.encode(into: &nestedContainer, subflow: key)
      }
      if let map = flow.map, let key = flow.position.key {
        var mapContainer = flowContainer.nestedContainer(
          keyedBy: SnapshotCodingKey.self, forKey: .map)
        try map.encode(into: &mapContainer, map: key)
      }
    }
    var mailboxContainer = container.nestedUnkeyedContainer(forKey: .mailbox)
    for entry in mailbox {
      var entryContainer = mailboxContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      try entryContainer.encode(entry.state, forKey: .state)
      switch entry.value {
      case .encoded(let value):
        try entryContainer.encode(value, forKey: .value)
      case .live(let value):
        guard let encodable = value as? any Encodable else {
          throw EncodingError.invalidValue(
            value,
            EncodingError.Context(
              codingPath: entryContainer.codingPath,
              debugDescription:
                "The value waiting for waiting state \(DisplayText.quoted(name: entry.state)) is \(DisplayText.withArticle(typeName: "\(type(of: value))")), which is not Encodable: make the type the state waits for Codable, or snapshot the run once the state has taken the value."
            ))
        }
        try entryContainer.encode(encodable, forKey: .value)
      }
    }
    var shapesContainer = container.nestedContainer(keyedBy: ShapeKey.self, forKey: .shapes)
    try StateShape.encode(shapes, into: &shapesContainer)
  }
}

/// A position key as a key of the table of shapes.
struct ShapeKey: CodingKey {
  let stringValue: String

  init(_ key: String) {
    stringValue = key
  }

  init?(stringValue: String) {
    self.stringValue = stringValue
  }

  var intValue: Int? { nil }

  init?(intValue: Int) {
    return nil
  }
}

extension RunStatus {
  /// Writes the status into `container` as ``encode(to:)`` does, with the snapshot's keys
  /// (the same names).
  fileprivate func encode(into container: inout KeyedEncodingContainer<SnapshotCodingKey>) throws {
    try container.encode(name, forKey: .status)
    switch self {
    case .running, .paused, .cancelled, .finished: break
    case .waitingForInput(let state):
      try container.encode(state, forKey: .state)
    case .waitingUntil(let time, let state):
      try container.encode(time.description, forKey: .until)
      try container.encode(state, forKey: .state)
    case .failed(let state, let reason):
      try container.encodeIfPresent(state, forKey: .state)
      try container.encode(reason, forKey: .reason)
    }
  }
}

/// The keys of the snapshot format.
enum SnapshotCodingKey: String, CodingKey {
  case formatVersion, id, chart, fingerprint, status, updated, stepLimit, flows, mailbox, shapes
  case flow, position, at, context, path, stepCount, attempt, deadline, decision
  case state, value, key
  /// The keys of a status (``RunStatus``'s own, with the same names).
  case until, reason
  /// The keys of a dispatch branch's flow (format 2).
  case parent, dispatch, branch
  /// A flow's inner run, in the subflow it stands in (format 2).
  case subflow
  /// A flow's map runs, in the map it stands in (format 2): the map object's keys.
  case map, elements, done, running, index, output
  /// The attempt of the subflow or map state that runs an inner run or a map's runs, and its
  /// timeout's deadline (optional keys of the `subflow` and `map` objects).
  case stateAttempt, timeout
  /// The dispatch branches' flows (format 3; `branch` is then `[parent, index]`).
  case branches
  /// A map's tolerated failures (the `failed` array of a `map` object) and their keys.
  case failed, kind, stateName, pathNames, error, type, description
}

extension SnapshotPosition: CustomStringConvertible {
  var description: String {
    switch self {
    case .entering(let key): "enters \(DisplayText.quoted(name: key)) next"
    case .waitingForInput(let key): "waits for input at \(DisplayText.quoted(name: key))"
    case .waitingUntil(let key): "waits for a time at \(DisplayText.quoted(name: key))"
    case .dispatching(let key): "stands in dispatch \(DisplayText.quoted(name: key))"
    case .finished(let key, let decision):
      "finished at \(DisplayText.quoted(name: key)), deciding \(decision)"
    case .notEntered: "entered no state"
    }
  }

  func encode(into container: inout KeyedEncodingContainer<SnapshotCodingKey>) throws {
    switch self {
    case .entering(let key):
      try container.encode("entering", forKey: .position)
      try container.encode(key, forKey: .at)
    case .waitingForInput(let key):
      try container.encode("waitingForInput", forKey: .position)
      try container.encode(key, forKey: .at)
    case .waitingUntil(let key):
      try container.encode("waitingUntil", forKey: .position)
      try container.encode(key, forKey: .at)
    case .dispatching(let key):
      try container.encode("dispatching", forKey: .position)
      try container.encode(key, forKey: .at)
    case .notEntered:
      try container.encode("notEntered", forKey: .position)
    case .finished(let key, let decision):
      try container.encode("finished", forKey: .position)
      try container.encode(key, forKey: .at)
      var decisionContainer = container.nestedContainer(
        keyedBy: SnapshotCodingKey.self, forKey: .decision)
      if decision.isYes {
        try decisionContainer.encode("yes", forKey: .value)
      } else if decision.isNo {
        try decisionContainer.encode("no", forKey: .value)
      } else if let key = decision.key {
        if let text = key as? String {
          try decisionContainer.encode(text, forKey: .key)
        } else if let number = key as? Int {
          try decisionContainer.encode(number, forKey: .key)
        } else {
          throw EncodingError.invalidValue(
            key,
            EncodingError.Context(
              codingPath: decisionContainer.codingPath,
              debugDescription:
                "The run finished with the key \(DisplayText.key(key)), a \(type(of: key)): a snapshot keeps a String or an Int key only."
            ))
        }
      } else {
        try decisionContainer.encode("done", forKey: .value)
      }
    }
  }

  init(from container: KeyedDecodingContainer<SnapshotCodingKey>) throws {
    let kind = try container.decode(String.self, forKey: .position)
    switch kind {
    case "entering": self = .entering(try container.decode(String.self, forKey: .at))
    case "waitingForInput":
      self = .waitingForInput(try container.decode(String.self, forKey: .at))
    case "waitingUntil": self = .waitingUntil(try container.decode(String.self, forKey: .at))
    case "dispatching": self = .dispatching(try container.decode(String.self, forKey: .at))
    case "notEntered": self = .notEntered
    case "finished":
      let key = try container.decode(String.self, forKey: .at)
      let decisionContainer = try container.nestedContainer(
        keyedBy: SnapshotCodingKey.self, forKey: .decision)
      let decision: Decision
      if decisionContainer.contains(.key) {
        if let number = try? decisionContainer.decode(Int.self, forKey: .key) {
          decision = .key(number)
        } else {
          decision = .key(try decisionContainer.decode(String.self, forKey: .key))
        }
      } else {
        switch try decisionContainer.decode(String.self, forKey: .value) {
        case "yes": decision = .yes
        case "no": decision = .no
        case "done": decision = .done
        case let other:
          throw DecodingError.dataCorruptedError(
            forKey: .value, in: decisionContainer,
            debugDescription:
              "Not a usable run snapshot: a decision is \"done\", \"yes\", \"no\" or a key, not \(DisplayText.quoted(name: other))."
          )
        }
      }
      self = .finished(key, decision)
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .position, in: container,
        debugDescription:
          "Not a usable run snapshot: a flow's position is \"entering\", \"waitingForInput\", \"waitingUntil\", \"dispatching\", \"finished\" or \"notEntered\", not \(DisplayText.quoted(name: kind))."
      )
    }
  }
}
