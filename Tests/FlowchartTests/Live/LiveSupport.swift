import Flowchart

/// A one-shot gate a state waits on and a test opens, so that a test decides when a state
/// finishes without depending on timing.
final class Gate: Sendable {
  private let state = Lock<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  func open() {
    let waiters = state.withLock { state in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiters.append(continuation) }
        return state.isOpen
      }
      if isOpen { continuation.resume() }
    }
  }
}

/// A value set once, after the closures that read it were made: the handle a state's code
/// pauses.
final class Box<Value: Sendable>: Sendable {
  private let value = Lock<Value?>(nil)
  func set(_ newValue: Value) { value.withLock { $0 = newValue } }
  var wrapped: Value? { value.withLock { $0 } }
}

/// Things observers collected, in the order they came.
final class Recorder: Sendable {
  private let lines = Lock<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}

extension RunEvent {
  /// `name: kind`, with `[flow n]` for a branch's event: an event without its time.
  var line: String {
    "\(flow == 0 ? "" : "[\(flow)] ")\(stateName): \(kind)"
  }

  var isPaused: Bool {
    if case .paused = kind { return true }
    return false
  }
}

extension RunEventStream.Iterator {
  /// Reads events until one satisfies `predicate`, and returns it; `nil` when the stream
  /// ends first.
  mutating func next(
    where predicate: (RunEvent) -> Bool
  ) async -> RunEvent? {
    while let event = await next() {
      if predicate(event) { return event }
    }
    return nil
  }
}

extension RunHandle {
  /// Every event of a run started paused, as lines, to its end: subscribes, resumes, reads.
  func allEventLines() async -> [String] {
    let events = events()
    resume()
    var lines: [String] = []
    for await event in events { lines.append(event.line) }
    return lines
  }
}

/// A clock that moves only when a test (or a state's code) advances it, so a run log's
/// times are fixed.
final class ManualClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private let current = Lock<Duration>(.zero)

  var now: Instant { Instant(offset: current.withLock { $0 }) }
  var minimumResolution: Duration { .zero }

  func advance(by duration: Duration) {
    current.withLock { $0 += duration }
  }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    advance(by: now.duration(to: deadline))
  }
}
