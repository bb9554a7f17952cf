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
// index below `elements` has not started. A map that tolerated a failure is not captured
// this way (the snapshot waits for it to end: see `MapRun+Nested.swift`). The optional keys
// `stateAttempt` and `timeout` are the map state's attempt and its timeout's deadline, as a
// `subflow` object's. A `map` object is a flow's, or an inner run's that stands in a map
// (its position `inMap`).

/// The runs of a map a flow stands in, as a snapshot holds them: how many elements the map
/// took, the outputs of those done, and the inner runs of those running.
final class MapSnapshot: Sendable {
  /// The element chart's ``Flowchart/structuralFingerprint``.
  let fingerprint: String
  /// How many elements the map took from the context.
  let elements: Int
  /// The outputs of the elements done, by index, in input order.
  let done: [(index: Int, output: MailboxEntry.Value)]
  /// The inner runs of the elements running, by index, in input order.
  let running: [(index: Int, run: NestedSnapshot)]
  /// The attempt of the map state, and its timeout's deadline.
  let entered: SubflowAttempt

  init(
    fingerprint: String, elements: Int, done: [(index: Int, output: MailboxEntry.Value)],
    running: [(index: Int, run: NestedSnapshot)], entered: SubflowAttempt = .first
  ) {
    self.fingerprint = fingerprint
    self.elements = elements
    self.done = done
    self.running = running
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
        throw corrupt("\(who) list element \(index) twice; an element is done or running, once.")
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
    done.sort { $0.index < $1.index }
    running.sort { $0.index < $1.index }
    return MapSnapshot(
      fingerprint: fingerprint, elements: elements, done: done, running: running,
      entered: entered)
  }
}
