/// A run store that keeps its runs in memory, in this process only: for tests, and for apps
/// that want the store's vocabulary (listing by status, loading by id) without persisting.
///
/// Everything is lost when the store is released or the process ends; to keep runs across a
/// restart, use FlowchartStores' `DirectoryRunStore` or `SQLiteRunStore`. Every operation
/// takes one lock for the time of a dictionary access, so the store is safe to share between
/// tasks and threads, and a save replaces the run under its id all at once.
public final class InMemoryRunStore: RunStore {
  private let runs: Lock<[RunID: StoredRun]>

  /// An empty store.
  public init() {
    runs = Lock([:])
  }

  /// A store that holds `runs` (for a run id given twice, the last one).
  public init(_ runs: some Sequence<StoredRun>) {
    var table: [RunID: StoredRun] = [:]
    for run in runs { table[run.id] = run }
    self.runs = Lock(table)
  }

  /// Saves `run`, replacing the run saved under its id.
  public func save(_ run: StoredRun) async throws {
    runs.withLock { $0[run.id] = run }
  }

  /// The run saved under `id`, or `nil` when there is none.
  public func load(_ id: RunID) async throws -> StoredRun? {
    runs.withLock { $0[id] }
  }

  /// The summaries of the runs that match `filter`, in the order of their ids.
  public func list(matching filter: RunFilter) async throws -> [RunSummary] {
    let matching = runs.withLock { table in
      table.values.compactMap { filter.matches($0.summary) ? $0.summary : nil }
    }
    return matching.sorted { $0.id < $1.id }
  }

  /// Removes the run saved under `id`; returns whether there was one.
  @discardableResult
  public func delete(_ id: RunID) async throws -> Bool {
    runs.withLock { $0.removeValue(forKey: id) != nil }
  }

  /// How many runs the store holds.
  public var count: Int {
    runs.withLock { $0.count }
  }
}
