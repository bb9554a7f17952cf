/// Runs parked at a gate until the test opens it, so that a test decides the order in
/// which concurrent runs or branches finish without depending on the scheduler.
actor Gates {
  private var parked: [Int: CheckedContinuation<Void, Never>] = [:]
  private var watchers: [(count: Int, continuation: CheckedContinuation<[Int], Never>)] = []
  private(set) var mostParkedAtOnce = 0

  /// Parks the run numbered `index` until ``open(_:)``.
  func park(_ index: Int) async {
    await withCheckedContinuation { continuation in
      parked[index] = continuation
      mostParkedAtOnce = max(mostParkedAtOnce, parked.count)
      notify()
    }
  }

  /// Returns the parked elements once `count` are parked.
  func parked(count: Int) async -> [Int] {
    if parked.count >= count { return parked.keys.sorted() }
    return await withCheckedContinuation { watchers.append((count, $0)) }
  }

  func open(_ index: Int) {
    parked.removeValue(forKey: index)?.resume()
  }

  private func notify() {
    let ready = watchers.filter { parked.count >= $0.count }
    watchers.removeAll { parked.count >= $0.count }
    for watcher in ready { watcher.continuation.resume(returning: parked.keys.sorted()) }
  }
}
