/// Finds states by name: built once when a chart compiles, for `GoTo`s, entry points, start
/// states and queries, never while a run steps.
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
    first.reserveCapacity(names.count)
    for (index, name) in names.enumerated() {
      let state = Int32(index)
      if let earlier = first[name] {
        shared[name, default: [earlier]].append(state)
      } else {
        first[name] = state
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

  /// Every distinct name.
  var names: Dictionary<String, Int32>.Keys { first.keys }
}
