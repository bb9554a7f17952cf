// A live run's events, from the run's side: the compact record of each event, and the
// `EventLog` that keeps them in one ring under the run's lock with each subscriber's cursor
// and wait. The subscriber's side (`EventSource`, taking a batch) is in `EventSource.swift`.

/// One event as a live run records it for its subscribers: plain values, copied without
/// reference counting. A ``RunEvent`` is the record and the run it came from: its kind and
/// its state's name are made when read (see ``EventNaming/kind(of:payload:)``).
struct EventRecord: BitwiseCopyable {
  /// When it happened, by the run's clock.
  var time: Duration
  /// The state, or -1 for none.
  var state: Int32
  /// The flow that reported it.
  var flow: Int32
  /// What happened, with ``value`` for the kinds that carry a number.
  var tag: EventTag
  /// A branch's position for the branch kinds; the exit's target for
  /// ``EventTag/decidedExit``.
  var value: Int32 = 0
}

/// What an ``EventRecord`` says happened: the kinds of ``RunEvent/Kind`` that carry no
/// value or a number, and ``payload`` for the rest (whose kind the log keeps beside the
/// record).
enum EventTag: UInt8, BitwiseCopyable {
  case runStarted, entered, decidedDone, decidedYes, decidedNo
  /// A multiple condition took the exit to the state in ``EventRecord/value``: the event
  /// reports the exit's label, which only the reader works out.
  case decidedExit
  case dispatchStarted, branchStarted, branchEnded, dispatchJoined, waitingForInput, paused
  case resumed, branchSkipped, branchCancelled
  /// Any other kind: the log keeps it whole beside the record.
  case payload
}

/// The events of a live run waiting for its subscribers, and the subscribers' places in
/// them: part of the run's locked state, so the run appends under the one lock it takes at a
/// boundary anyway.
///
/// Building a ``RunEvent`` (its kind's payload, its state's name) and handing it to each
/// subscriber costs far more than the event's bookkeeping, and waking a reader for each
/// event (as an `AsyncStream`'s continuation does) costs the run a thread wake-up per event.
/// So the run only records what happened, in a few plain words (``EventRecord``), once for
/// all its subscribers; and each reader:
///
/// - takes every record waiting for it in one step, under the run's lock, and builds the
///   events from them while the run goes on;
/// - while the run keeps reporting, comes back for more after a delay it adapts to the run's
///   pace (so that a batch stays under a quarter of its limit), at most ``pollInterval``,
///   or once half its limit waits; when it then finds nothing, it waits for the run's next
///   event.
///
/// So an event reaches a busy reader at most about ``pollInterval`` late, and a waiting
/// reader at once; the run wakes a reader about once per quiet spell or per half its limit.
///
/// The policy the handle documents holds for each reader: events arrive in the order the run
/// appended them; at most the reader's limit of events wait to be taken, and when more came,
/// the reader gets the newest that many (the oldest are dropped), so the run never waits
/// for its readers; once the run ends, the stream ends after the events already appended.
///
/// The records are a ring that holds only what some reader may still take: from the
/// oldest record a reader has not taken (or, for a reader further behind than its limit,
/// the newest `limit`) to the newest. It grows (doubling) as records wait and shrinks once
/// they are taken and the run appended four times its length with no take needing more than
/// a quarter of it, so its memory follows the events held and the readers' recent lags, not
/// the limits: a limit of `Int.max` costs nothing until events wait, and a reader that keeps
/// up keeps the ring small. Each reader has a cursor: the number of the first record it has
/// not taken, among all the run appended.
struct EventLog {
  /// The ring: ``held`` records from slot ``head`` on, wrapping; its length is 0 or a power
  /// of two.
  private var ring: [EventRecord] = []
  /// The kinds of the records tagged ``EventTag/payload``, by slot, as long as ``ring``;
  /// empty until the first.
  private var payloads: [RunEvent.Kind?] = []
  /// The slot of the oldest record held.
  private var head = 0
  /// How many records the ring holds: the newest of those the run appended.
  private var held = 0
  /// The most records any reader may need: the largest limit among the readers that have
  /// not stopped (0 when none is left).
  private var mostNeeded = 0
  /// `min(mostNeeded, ring.count)`: below it, an append only stores the record.
  private var room = 0
  /// How many records the ring held at the readers' recent takes, halved at each take:
  /// the ring shrinks once it is four times as long, so that a reader that keeps up takes
  /// batches without the ring growing and shrinking at each.
  private var recentPeak = 0
  /// ``total`` at the last take that needed more than a quarter of the ring: it shrinks only
  /// once the run appended four times its length since. A reader that mostly keeps up still
  /// falls behind now and then (its task waits for a thread while the run reports): the ring
  /// keeps the size those lags need instead of shrinking between them and growing again at
  /// each, a new ring initialized in full each time (BENCHMARKS.md, “The subscriber's ring”).
  private var lastNeededAt: UInt64 = 0
  /// How many records the run appended, ever.
  private(set) var total: UInt64 = 0
  /// The subscribers, in the order they subscribed.
  private var readers: [Reader] = []
  /// The smallest ``total`` at which a waiting reader must be woken; `UInt64.max` when no
  /// reader waits.
  private(set) var nextWake = UInt64.max
  /// Whether the run ended: no record comes after those in the ring.
  private(set) var isFinished = false
  private var nextReader = 0

  /// A subscriber's place and wait.
  private struct Reader {
    let id: Int
    let limit: Int
    /// The number of the first record it has not taken.
    var cursor: UInt64
    /// The reader, waiting until ``wakesAt`` records were appended in all.
    var waiter: CheckedContinuation<Void, Never>?
    var wakesAt = UInt64.max
    /// The timer of a wait between batches.
    var timer: Task<Void, Never>?
    /// Numbers the reader's waits, so that a timer that fires late wakes nothing.
    var wait = 0
    /// Whether the reader stopped (its task was cancelled): it takes nothing more.
    var hasStopped = false
  }

  /// Whether some reader subscribed and has not ended its subscription.
  var hasReaders: Bool { !readers.isEmpty }

  /// How many records the ring holds, and how many it has room for: for tests.
  var storage: (held: Int, slots: Int) { (held, ring.count) }

  // MARK: - The run's side

  /// Appends `record`; returns whether a reader waits for as many records as there now are
  /// (then call ``wakeReaders()`` and resume them after the lock is released).
  @inline(__always)
  mutating func append(_ record: EventRecord) -> Bool {
    if _fastPath(held < room) {
      ring[(head &+ held) & (ring.count &- 1)] = record
      held &+= 1
    } else {
      appendMakingRoom(record)
    }
    total &+= 1
    return _slowPath(total >= nextWake)
  }

  /// Appends `records`, in order, as ``append(_:)`` does each (none is tagged
  /// ``EventTag/payload``): copied in at most two blocks while the ring has room for them
  /// all. Returns whether a reader waits for as many records as there now are.
  mutating func append(contentsOf records: UnsafeBufferPointer<EventRecord>) -> Bool {
    guard let source = records.baseAddress, !records.isEmpty else { return false }
    let count = records.count
    if _fastPath(held &+ count <= room) {
      let mask = ring.count &- 1
      let first = (head &+ held) & mask
      let before = min(count, ring.count &- first)
      ring.withUnsafeMutableBufferPointer { ring in
        let slots = ring.baseAddress.unsafelyUnwrapped
        (slots + first).update(from: source, count: before)
        if before < count { slots.update(from: source + before, count: count &- before) }
      }
      held &+= count
      total &+= UInt64(count)
      return _slowPath(total >= nextWake)
    }
    var wakes = false
    for record in records { wakes = append(record) || wakes }
    return wakes
  }

  /// ``append(_:)`` for a record tagged ``EventTag/payload``, whose kind the log keeps
  /// beside it.
  mutating func append(_ record: EventRecord, payload: RunEvent.Kind) -> Bool {
    let wakes = append(record)
    // Stored as the newest record, unless no reader needs records.
    guard mostNeeded > 0 else { return wakes }
    if payloads.isEmpty { payloads = Array(repeating: nil, count: ring.count) }
    payloads[(head + held - 1) & (ring.count - 1)] = payload
    return wakes
  }

  /// Appends `record` when the ring is full: drops the oldest record when the readers need
  /// no more than the ring holds, else doubles the ring. Stores nothing when no reader
  /// needs records.
  @inline(never)
  private mutating func appendMakingRoom(_ record: EventRecord) {
    guard mostNeeded > 0 else { return }
    if held >= mostNeeded {
      dropOldest(held - mostNeeded + 1)
    }
    if held == ring.count {
      resize(to: ring.isEmpty ? 16 : ring.count * 2)
    }
    ring[(head + held) & (ring.count - 1)] = record
    held += 1
  }

  /// Drops the `count` oldest records, and their payloads.
  private mutating func dropOldest(_ count: Int) {
    guard count > 0 else { return }
    if !payloads.isEmpty {
      for offset in 0..<count { payloads[(head + offset) & (ring.count - 1)] = nil }
    }
    head = (head + count) & (ring.count - 1)
    held -= count
  }

  /// Makes the ring `slots` long (a power of two, at least ``held``), its records first.
  private mutating func resize(to slots: Int) {
    var newRing = [EventRecord](
      repeating: EventRecord(time: .zero, state: -1, flow: -1, tag: .runStarted), count: slots)
    var newPayloads: [RunEvent.Kind?] =
      payloads.isEmpty ? [] : Array(repeating: nil, count: slots)
    // The records in at most two blocks (up to the ring's end, then from its start).
    let first = min(held, ring.count - head)
    ring.withUnsafeBufferPointer { old in
      newRing.withUnsafeMutableBufferPointer { new in
        guard let from = old.baseAddress, let to = new.baseAddress else { return }
        to.update(from: from + head, count: first)
        (to + first).update(from: from, count: held - first)
      }
    }
    if !payloads.isEmpty {
      for offset in 0..<held { newPayloads[offset] = payloads[(head + offset) & (ring.count - 1)] }
    }
    ring = newRing
    payloads = newPayloads
    head = 0
    room = min(mostNeeded, ring.count)
  }

  /// Drops the records no reader can take any more, and lets the ring shrink when it holds
  /// far fewer records than it has room for. Call it when readers took records, stopped or
  /// left.
  private mutating func trim() {
    mostNeeded = 0
    var oldestNeeded = total
    for reader in readers where !reader.hasStopped {
      mostNeeded = max(mostNeeded, reader.limit)
      let limit = UInt64(reader.limit)
      oldestNeeded = min(oldestNeeded, max(reader.cursor, total >= limit ? total - limit : 0))
    }
    recentPeak = max(recentPeak / 2, held)
    if held > ring.count / 4 { lastNeededAt = total }
    let oldestHeld = total - UInt64(held)
    if oldestNeeded > oldestHeld { dropOldest(Int(min(oldestNeeded - oldestHeld, UInt64(held)))) }
    if mostNeeded == 0 {
      release()
    } else if ring.count > 64 && ring.count / 4 > recentPeak
      && total &- lastNeededAt >= UInt64(ring.count) &* 4
    {
      var slots = 64
      while slots < recentPeak * 2 { slots *= 2 }
      resize(to: slots)
    }
    room = min(mostNeeded, ring.count)
  }

  /// Takes the waiters of the readers that have as many records as they wait for.
  mutating func wakeReaders() -> [CheckedContinuation<Void, Never>] {
    var woken: [CheckedContinuation<Void, Never>] = []
    for index in readers.indices {
      guard total >= readers[index].wakesAt, let waiter = readers[index].waiter else { continue }
      woken.append(waiter)
      readers[index].timer?.cancel()
      clearWait(of: index)
    }
    updateNextWake()
    return woken
  }

  /// Ends every stream after the records appended so far; returns the readers to wake.
  mutating func finish() -> [CheckedContinuation<Void, Never>] {
    isFinished = true
    if readers.isEmpty { release() }
    var woken: [CheckedContinuation<Void, Never>] = []
    for index in readers.indices {
      guard let waiter = readers[index].waiter else { continue }
      woken.append(waiter)
      readers[index].timer?.cancel()
      clearWait(of: index)
    }
    nextWake = .max
    return woken
  }

  // MARK: - Subscribing

  /// Adds a reader that takes the records appended from now on, at most `limit` waiting;
  /// returns its number.
  mutating func subscribe(limit: Int) -> Int {
    nextReader += 1
    readers.append(Reader(id: nextReader, limit: limit, cursor: total))
    mostNeeded = max(mostNeeded, limit)
    room = min(mostNeeded, ring.count)
    return nextReader
  }

  /// Removes reader `id`; returns its waiter, if it waits.
  mutating func unsubscribe(_ id: Int) -> CheckedContinuation<Void, Never>? {
    guard let index = readers.firstIndex(where: { $0.id == id }) else { return nil }
    let reader = readers.remove(at: index)
    reader.timer?.cancel()
    updateNextWake()
    if readers.isEmpty { release() } else { trim() }
    return reader.waiter
  }

  /// Lets the ring go once no reader needs it: a reader that subscribes later takes only what
  /// the run appends after it, and events kept after their stream was released (which refer
  /// to the run) do not keep the ring.
  private mutating func release() {
    ring = []
    payloads = []
    head = 0
    held = 0
    room = 0
    recentPeak = 0
  }

  // MARK: - The reader's side

  /// What a reader found.
  enum TakeOutcome {
    /// It took the records waiting.
    case took
    /// The stream ended and every record was taken.
    case ended
    /// Nothing to take yet: wait for the run.
    case mustWait
  }

  /// Hands reader `id` every record waiting for it (the newest of them up to its limit),
  /// appended to `batch`, and the kinds of those tagged ``EventTag/payload``, in order.
  mutating func take(
    for id: Int, into batch: inout [EventRecord], payloads batchPayloads: inout [RunEvent.Kind]
  ) -> TakeOutcome {
    guard let index = readers.firstIndex(where: { $0.id == id }), !readers[index].hasStopped
    else { return .ended }
    let waiting = total - readers[index].cursor
    guard waiting > 0 else { return isFinished ? .ended : .mustWait }
    // The ring holds the newest `held` records, and at least the newest `count` of them.
    let count = min(Int(min(waiting, UInt64(readers[index].limit))), held)
    let mask = ring.count - 1
    let first = (head + held - count) & mask
    let end = first + count
    if end <= ring.count {
      batch.append(contentsOf: ring[first..<end])
      if !payloads.isEmpty { collectPayloads(first..<end, into: &batchPayloads) }
    } else {
      batch.append(contentsOf: ring[first...])
      batch.append(contentsOf: ring[..<(end - ring.count)])
      if !payloads.isEmpty {
        collectPayloads(first..<ring.count, into: &batchPayloads)
        collectPayloads(0..<(end - ring.count), into: &batchPayloads)
      }
    }
    readers[index].cursor = total
    trim()
    return .took
  }

  private func collectPayloads(_ slots: Range<Int>, into batch: inout [RunEvent.Kind]) {
    for slot in slots where ring[slot].tag == .payload {
      if let payload = payloads[slot] { batch.append(payload) }
    }
  }

  /// Makes reader `id` wait until `count` records wait for it, unless they already do or the
  /// stream ended: returns the wait's number, or `nil` when it must not wait.
  mutating func beginWait(
    for id: Int, wakingAt count: Int, continuation: CheckedContinuation<Void, Never>
  ) -> Int? {
    guard let index = readers.firstIndex(where: { $0.id == id }), !readers[index].hasStopped,
      !isFinished, total - readers[index].cursor < UInt64(count)
    else { return nil }
    readers[index].wait += 1
    readers[index].waiter = continuation
    readers[index].wakesAt = readers[index].cursor + UInt64(count)
    nextWake = min(nextWake, readers[index].wakesAt)
    return readers[index].wait
  }

  /// Keeps `timer` with reader `id`'s wait number `wait`; `false` when that wait already
  /// ended (cancel the timer).
  mutating func setTimer(_ timer: Task<Void, Never>, for id: Int, wait: Int) -> Bool {
    guard let index = readers.firstIndex(where: { $0.id == id }),
      readers[index].wait == wait, readers[index].waiter != nil
    else { return false }
    readers[index].timer = timer
    return true
  }

  /// Ends reader `id`'s wait number `wait`, if it still waits: its timer fired. Returns the
  /// waiter to resume.
  mutating func endWait(for id: Int, wait: Int) -> CheckedContinuation<Void, Never>? {
    guard let index = readers.firstIndex(where: { $0.id == id }),
      readers[index].wait == wait, let waiter = readers[index].waiter
    else { return nil }
    clearWait(of: index)
    updateNextWake()
    return waiter
  }

  /// Stops reader `id`: its task was cancelled. Returns its waiter, if it waits.
  mutating func stop(_ id: Int) -> CheckedContinuation<Void, Never>? {
    guard let index = readers.firstIndex(where: { $0.id == id }) else { return nil }
    readers[index].hasStopped = true
    readers[index].timer?.cancel()
    let waiter = readers[index].waiter
    clearWait(of: index)
    updateNextWake()
    trim()
    return waiter
  }

  private mutating func clearWait(of index: Int) {
    readers[index].waiter = nil
    readers[index].timer = nil
    readers[index].wakesAt = .max
  }

  private mutating func updateNextWake() {
    nextWake = readers.lazy.filter { $0.waiter != nil }.map(\.wakesAt).min() ?? .max
  }

  /// The longest a reader whose run was reporting waits before it takes the next batch:
  /// how late an event may reach a reader while its run keeps reporting. A run that stops
  /// reporting (it waits, or runs a long state) wakes its reader with its next event.
  static var pollInterval: UInt64 { 1_000_000 }

  /// The delay a reader starts with, and starts again with after its run was quiet.
  static var shortestDelay: UInt64 { 16_000 }
}

/// The events of a live run's top-level flow while only subscribers read them: a ring that
/// the flow appends to without the run's lock, which the run moves into its ``EventLog``
/// under the lock before anything else reads or appends to the log.
///
/// The flow is the ring's one writer: it stores a record in the next free slot and
/// publishes it with one store of ``published``. Every section that reads or appends to the
/// log under the run's lock takes what was published first (``LiveRun/takeTopFlowEvents(in:)``),
/// so the log keeps the order in which the flows reported their events; the run's readers
/// take their batches from the log as before. When the ring is full, the flow takes the lock
/// and moves the ring into the log itself, so the ring never drops a record and never grows
/// (``capacity`` records, made once, when the run's first subscriber subscribes).
///
/// A reader that waits for a number of records is woken by the flow: the run keeps in
/// ``wakeAt`` how many records the flow must have published for some waiting reader to
/// have what it waits for. The flow stores ``published`` then reads ``wakeAt``; a reader
/// stores ``wakeAt`` then reads ``published`` (both sequentially consistent), so at least
/// one of them sees the other's store: no wake-up is lost.
final class TopFlowEvents {
  /// How many records the ring holds: a power of two.
  static var capacity: Int { 512 }

  /// The slots, ``capacity`` of them; record `n` (from 0, among all the flow published)
  /// is in slot `n % capacity`.
  let slots: UnsafeMutablePointer<EventRecord>
  /// How many records the flow has published, ever.
  let published = AtomicWord<Int>(0)
  /// How many records the run has moved into its log, ever: the slots below it are free.
  let taken = AtomicWord<Int>(0)
  /// The number of published records at which the flow must take the lock to wake a
  /// reader; `Int.max` when no reader waits.
  let wakeAt = AtomicWord<Int>(Int.max)

  // The writer's own state: read and written only by the top-level flow (see
  // `@unchecked Sendable` below).

  /// How many records the flow wrote (``published``, without reading it back).
  var written = 0
  /// ``taken`` as the flow last read it.
  var takenSeen = 0
  /// The time of the flow's last event when it was a state's decision: the state the flow
  /// enters next takes it, rather than read the clock again.
  var decisionTime: Duration?

  init() {
    slots = .allocate(capacity: Self.capacity)
  }

  deinit {
    slots.deallocate()
  }

  /// Publishes `record`: returns `false`, publishing nothing, when the ring is full (move
  /// it into the log under the lock, then publish again).
  @inline(__always)
  func publish(_ record: EventRecord) -> Bool {
    if _slowPath(written &- takenSeen == Self.capacity) {
      takenSeen = taken.load(ordering: .acquiring)
      if written &- takenSeen == Self.capacity { return false }
    }
    slots[written & (Self.capacity &- 1)] = record
    written &+= 1
    published.store(written, ordering: .sequentiallyConsistent)
    return true
  }

  /// Whether a reader waits for the records published so far: then take the ring under the
  /// lock and wake the readers.
  @inline(__always)
  var mustWake: Bool {
    written >= wakeAt.load(ordering: .sequentiallyConsistent)
  }
}

// `TopFlowEvents` is `Sendable`: `slots` is a `let` pointer to memory the object owns; a slot
// is written only by the top-level flow, below `published` records plus `capacity` past
// `taken` (so never a slot not yet taken), before the flow publishes it with a sequentially
// consistent store of `published`; and read only under the run's lock, below `published` as
// loaded (acquiring), before the lock side stores `taken` (releasing) past it, which the
// writer loads (acquiring) before it reuses the slot. `published`, `taken` and `wakeAt` are
// atomic words. `written`, `takenSeen` and `decisionTime` are read and written only by the
// top-level flow: its boundaries run one after another (a flow that parks goes on in a task
// started after it parked, under the run's lock), and the run's other sections that touch
// `decisionTime` (recording another event of the top-level flow, under the lock) run on that
// flow too.
extension TopFlowEvents: @unchecked Sendable {}
