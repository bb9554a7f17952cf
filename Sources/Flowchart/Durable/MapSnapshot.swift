// A map's runs in a snapshot (format 2): the `"map"` object of a flow whose position is
// `"inMap"`.
//
//   {"flow": 0, "position": "inMap", "at": "Upload images",
//    "context": {"…": "the outer context from before the map"},
//    "path": ["Prepare", "Upload images"], "stepCount": 2, "attempt": 1,
//    "map": {
//      "fingerprint": "…the element chart's structural fingerprint…",
//      "elements": 4,
//      "done": [{"index": 0, "output": {"…": "element 0's final context"}}],
//      "running": [{"index": 1, "subflow": {"…": "an inner run, as a subflow's"}}]}}
//
// `done` lists the elements whose runs ended at a final state, with their outputs, in input
// order; `running` the elements whose runs stand at a boundary, each an inner run in the
// element chart's key space (the `subflow` object of `NestedSnapshot.swift`); every other
// index below `elements` has not started, except those in the optional `failed` array (written
// only when the map tolerated a failure): the elements whose runs failed and that the map
// tolerated, each its `RunError` as plain data, since the error a state threw is of any type:
//
//      "failed": [{"index": 2, "kind": "thrown error", "at": "Charge", "stateName": "Charge",
//                  "path": ["Charge"], "pathNames": ["Charge"],
//                  "reason": "The run stopped at action 'Charge' (…): it threw …",
//                  "error": {"type": "MyApp.CardDeclined", "description": "CardDeclined()"}}]
//
// `kind` is the `RunError.Kind`'s description; `at` and `path` are the position keys of the
// error's state and path in the element chart (`at` absent when the error has no state),
// `stateName` and `pathNames` its names as the error told them; `reason` its message
// without the path (its description is the reason, then the path's names); `error` the
// underlying error's type name and description, `key` the unmatched key's, each when the
// error has one. On resume they come back as `RunError`s whose underlying error (and
// unmatched key) is a `RestoredError`. The optional keys `stateAttempt` and `timeout` are
// the map state's attempt and its timeout's deadline, as a `subflow` object's. A `map`
// object is a flow's, or an inner run's that stands in a map (its position `inMap`).

/// A failure of a map's element that the map tolerated, as a snapshot holds it: its
/// ``RunError`` as plain data (see ``RestoredError``).
struct MapFailureRecord: Sendable, Equatable {
  /// The element's position in the input.
  let index: Int
  let kind: RunError.Kind
  /// The position key of the error's state in the element chart; `nil` when it has none.
  let state: String?
  let stateName: String
  /// The position keys of the error's path in the element chart.
  let path: [String]
  let pathNames: [String]
  /// The error's message, without its path.
  let reason: String
  let underlyingError: RestoredError?
  let unmatchedKey: RestoredError?

  init(
    index: Int, kind: RunError.Kind, state: String?, stateName: String, path: [String],
    pathNames: [String], reason: String, underlyingError: RestoredError?,
    unmatchedKey: RestoredError?
  ) {
    self.index = index
    self.kind = kind
    self.state = state
    self.stateName = stateName
    self.path = path
    self.pathNames = pathNames
    self.reason = reason
    self.underlyingError = underlyingError
    self.unmatchedKey = unmatchedKey
  }

  /// Element `index`'s failure `error`, its states keyed in `structure` (the element
  /// chart's); `nil` when a state of the error is not in that chart.
  init?(index: Int, error: RunError, structure: ChartStructure) {
    func key(_ state: StateID) -> String? {
      structure.keys.indices.contains(state.index) ? structure.keys[state.index] : nil
    }
    var path: [String] = []
    path.reserveCapacity(error.path.count)
    for state in error.path {
      guard let key = key(state) else { return nil }
      path.append(key)
    }
    var stateKey: String? = nil
    if let state = error.state {
      guard let key = key(state) else { return nil }
      stateKey = key
    }
    self.init(
      index: index, kind: error.kind, state: stateKey, stateName: error.stateName, path: path,
      pathNames: error.pathNames, reason: error.reason,
      underlyingError: error.underlyingError.map { RestoredError(capturing: $0) },
      unmatchedKey: error.unmatchedKey.map { RestoredError(capturing: $0) })
  }

  /// The failure as a ``RunError`` of the element chart whose structure is `structure`,
  /// with the same kind, names and description; or the first of its position keys that
  /// the chart no longer has.
  func runError(on structure: ChartStructure) -> Result<RunError, MissingKey> {
    var states: [StateID] = []
    states.reserveCapacity(path.count)
    for key in path {
      guard let state = structure.states[key] else { return .failure(MissingKey(key: key)) }
      states.append(StateID(state))
    }
    var state: StateID? = nil
    if let key = self.state {
      guard let found = structure.states[key] else { return .failure(MissingKey(key: key)) }
      state = StateID(found)
    }
    return .success(
      RunError(
        kind, state: state, stateName: stateName, path: states, pathNames: pathNames,
        underlyingError: underlyingError, unmatchedKey: unmatchedKey, reason: reason))
  }

  /// A position key of a failure that the element chart no longer has.
  struct MissingKey: Error {
    let key: String
  }

  /// Writes the failure into `entry`, one object of the `failed` array.
  func encode(into entry: inout KeyedEncodingContainer<SnapshotCodingKey>) throws {
    try entry.encode(index, forKey: .index)
    try entry.encode(kind.description, forKey: .kind)
    try entry.encodeIfPresent(state, forKey: .at)
    try entry.encode(stateName, forKey: .stateName)
    try entry.encode(path, forKey: .path)
    try entry.encode(pathNames, forKey: .pathNames)
    try entry.encode(reason, forKey: .reason)
    for (value, key) in [(underlyingError, SnapshotCodingKey.error), (unmatchedKey, .key)] {
      guard let value else { continue }
      var object = entry.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: key)
      try object.encode(value.typeName, forKey: .type)
      try object.encode(value.description, forKey: .description)
    }
  }

  /// Reads and checks one object of the `failed` array; `who` names the map's runs, and
  /// `check` checks the index (in range, listed once).
  static func decode(
    from entry: KeyedDecodingContainer<SnapshotCodingKey>, who: String,
    check: (Int) throws -> Void, corrupt: (String) -> DecodingError
  ) throws -> MapFailureRecord {
    let index = try entry.decode(Int.self, forKey: .index)
    try check(index)
    let code = try entry.decode(String.self, forKey: .kind)
    guard let kind = RunError.Kind(described: code) else {
      throw corrupt(
        "\(who) list element \(index) as failed with the kind \(DisplayText.quoted(name: code)), which no run error has (a kind is written as its description, such as 'thrown error')."
      )
    }
    let state = try entry.decodeIfPresent(String.self, forKey: .at)
    let stateName = try entry.decode(String.self, forKey: .stateName)
    let path = try entry.decode([String].self, forKey: .path)
    let pathNames = try entry.decode([String].self, forKey: .pathNames)
    guard path.count == pathNames.count, path.count <= RunResult<Int>.pathCapacity else {
      throw corrupt(
        "\(who) list element \(index) as failed with a path of \(path.count) states and \(pathNames.count) names; a failure's path has as many names as states, at most \(RunResult<Int>.pathCapacity)."
      )
    }
    let reason = try entry.decode(String.self, forKey: .reason)
    func restored(_ key: SnapshotCodingKey) throws -> RestoredError? {
      guard entry.contains(key) else { return nil }
      let object = try entry.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: key)
      return RestoredError(
        typeName: try object.decode(String.self, forKey: .type),
        description: try object.decode(String.self, forKey: .description))
    }
    return MapFailureRecord(
      index: index, kind: kind, state: state, stateName: stateName, path: path,
      pathNames: pathNames, reason: reason, underlyingError: try restored(.error),
      unmatchedKey: try restored(.key))
  }
}

/// The runs of a map a flow stands in, as a snapshot holds them: how many elements the map
/// took, the outputs of those done, the inner runs of those running, and the failures it
/// tolerated.
final class MapSnapshot: Sendable {
  /// The element chart's ``Flowchart/structuralFingerprint``.
  let fingerprint: String
  /// How many elements the map took from the context.
  let elements: Int
  /// The outputs of the elements done, by index, in input order.
  let done: [(index: Int, output: MailboxEntry.Value)]
  /// The inner runs of the elements running, by index, in input order.
  let running: [(index: Int, run: NestedSnapshot)]
  /// The failures the map tolerated, by index, in input order.
  let failed: [MapFailureRecord]
  /// The attempt of the map state, and its timeout's deadline.
  let entered: SubflowAttempt

  init(
    fingerprint: String, elements: Int, done: [(index: Int, output: MailboxEntry.Value)],
    running: [(index: Int, run: NestedSnapshot)], failed: [MapFailureRecord] = [],
    entered: SubflowAttempt = .first
  ) {
    self.fingerprint = fingerprint
    self.elements = elements
    self.done = done
    self.running = running
    self.failed = failed
    self.entered = entered
  }

  /// Writes the runs into `container`, the `map` object; `map` names the map state, for an
  /// error.
  func encode(into container: inout KeyedEncodingContainer<SnapshotCodingKey>, map: String)
    throws
  {
    try container.encode(fingerprint, forKey: .fingerprint)
    try entered.encode(into: &container)
    try container.encode(elements, forKey: .elements)
    var doneContainer = container.nestedUnkeyedContainer(forKey: .done)
    for (index, output) in done {
      var entry = doneContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      try entry.encode(index, forKey: .index)
      switch output {
      case .encoded(let value):
        try entry.encode(value, forKey: .output)
      case .live(let value):
        guard let encodable = value as? any Encodable else {
          throw EncodingError.invalidValue(
            value,
            EncodingError.Context(
              codingPath: entry.codingPath,
              debugDescription:
                "The elements of map \(DisplayText.quoted(name: map)) are \(DisplayText.withArticle(typeName: "\(type(of: value))")), which is not Encodable: make it Codable."
            ))
        }
        try entry.encode(encodable, forKey: .output)
      }
    }
    var runningContainer = container.nestedUnkeyedContainer(forKey: .running)
    for (index, run) in running {
      var entry = runningContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      try entry.encode(index, forKey: .index)
      var inner = entry.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .subflow)
      try run.encode(into: &inner, subflow: map)
    }
    guard !failed.isEmpty else { return }
    var failedContainer = container.nestedUnkeyedContainer(forKey: .failed)
    for failure in failed {
      var entry = failedContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      try failure.encode(into: &entry)
    }
  }

  /// The most elements a snapshot's map may hold: more is refused as damaged.
  static let maximumElements = 1 << 24

  /// Reads and checks the `map` object of flow `flow`, which stands in map `map`, `depth`
  /// subflows and maps deep (1 for a flow's own map).
  static func decode(
    from container: KeyedDecodingContainer<SnapshotCodingKey>, flow: Int32, map: String,
    depth: Int = 1, corrupt: (String) -> DecodingError
  ) throws -> MapSnapshot {
    let who = "the runs of map \(DisplayText.quoted(name: map)) in flow \(flow)"
    guard depth <= NestedSnapshot.maximumDepth else {
      throw corrupt("\(who) nest subflows and maps more than \(NestedSnapshot.maximumDepth) deep.")
    }
    let fingerprint = try container.decode(String.self, forKey: .fingerprint)
    let entered = try SubflowAttempt.decode(from: container, who: who, corrupt: corrupt)
    let elements = try container.decode(Int.self, forKey: .elements)
    guard elements >= 0, elements <= maximumElements else {
      throw corrupt(
        "\(who) count \(elements) elements; a map holds from 0 to \(maximumElements).")
    }
    var seen = Set<Int>()
    func check(_ index: Int) throws {
      guard index >= 0, index < elements else {
        throw corrupt(
          "\(who) list element \(index), outside the map's \(elements) elements (0 to \(elements - 1))."
        )
      }
      guard seen.insert(index).inserted else {
        throw corrupt(
          "\(who) list element \(index) twice; an element is done, running or failed, once.")
      }
    }
    var done: [(index: Int, output: MailboxEntry.Value)] = []
    var doneContainer = try container.nestedUnkeyedContainer(forKey: .done)
    while !doneContainer.isAtEnd {
      let entry = try doneContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      let index = try entry.decode(Int.self, forKey: .index)
      try check(index)
      done.append((index, .encoded(try entry.decode(SnapshotValue.self, forKey: .output))))
    }
    var running: [(index: Int, run: NestedSnapshot)] = []
    var runningContainer = try container.nestedUnkeyedContainer(forKey: .running)
    while !runningContainer.isAtEnd {
      let entry = try runningContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      let index = try entry.decode(Int.self, forKey: .index)
      try check(index)
      let run = try NestedSnapshot.decode(
        from: try entry.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .subflow),
        flow: flow, subflow: map, depth: depth, corrupt: corrupt)
      running.append((index, run))
    }
    var failed: [MapFailureRecord] = []
    if container.contains(.failed) {
      var failedContainer = try container.nestedUnkeyedContainer(forKey: .failed)
      while !failedContainer.isAtEnd {
        let entry = try failedContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
        failed.append(
          try MapFailureRecord.decode(from: entry, who: who, check: check, corrupt: corrupt))
      }
    }
    done.sort { $0.index < $1.index }
    running.sort { $0.index < $1.index }
    failed.sort { $0.index < $1.index }
    return MapSnapshot(
      fingerprint: fingerprint, elements: elements, done: done, running: running,
      failed: failed, entered: entered)
  }
}
