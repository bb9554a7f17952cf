/// Finds states by name: built once when a chart compiles, for `GoTo`s, entry points, start
/// states and queries, never while a run steps.
///
/// Names are compared as Swift compares strings (canonical equivalence): `"Caf\u{E9}"` and
/// `"Cafe\u{301}"` are one name. Whoever filters states before indexing them must keep every
/// state whose name could be equal, not only those with as many bytes.
///
/// Most names belong to one state, so the table maps each name to its first state and
/// keeps lists only for the few names several states share: one hash entry per name and no
/// allocation per state.
struct NameTable: Sendable {
  /// What a name refers to.
  enum Match: Equatable {
    /// No state has the name.
    case none
    /// Exactly one state has it.
    case one(Int32)
    /// Several states have it, in numbering order.
    case several([Int32])
  }

  private var first: [String: Int32] = [:]
  private var shared: [String: [Int32]] = [:]

  /// Indexes `names`, the name of each state in numbering order.
  init(_ names: some Collection<String>) {
    self.init(
      entries: names.enumerated().lazy.map { (name: $1, state: Int32($0)) },
      capacity: names.count)
  }

  /// Indexes the given states by their names; `entries` lists them in numbering order.
  ///
  /// The compiler indexes only the states whose names `GoTo`s and entry points refer to: a
  /// small table that stays in cache, where one over every name of a large chart would
  /// miss it at every step.
  init(entries: some Sequence<(name: String, state: Int32)>, capacity: Int = 0) {
    first.reserveCapacity(capacity)
    for (name, state) in entries {
      if let earlier = first.updateValue(state, forKey: name) {
        first[name] = earlier
        shared[name, default: [earlier]].append(state)
      }
    }
  }

  /// The states named `name`.
  func match(_ name: String) -> Match {
    guard let state = first[name] else { return .none }
    if let states = shared[name] { return .several(states) }
    return .one(state)
  }

  /// The states named `name`, in numbering order; empty when there are none.
  func states(named name: String) -> [Int32] {
    switch match(name) {
    case .none: []
    case .one(let state): [state]
    case .several(let states): states
    }
  }

}
