/// Records the states a flow enters, keeping the most recent ``maximumCapacity`` of them
/// in a ring, so a run of any length uses constant memory.
///
/// Recording is on the run loop's hot path: a store and an increment per state, one
/// comparison against a checkpoint, no uniqueness check, and no allocation once the ring is
/// full. The type is noncopyable, so exactly one flow writes the ring; when a dispatch
/// branch ends, ``finish()`` hands the ring over, read-only, to the flow that joins it.
@usableFromInline
struct PathRecorder: ~Copyable {
  /// How many of the most recent states are kept. A power of two.
  @usableFromInline static var maximumCapacity: Int { 1_024 }

  /// Owns the ring's memory; `nil` until the flow enters its second state, so a flow of
  /// one state, such as a short dispatch branch, allocates nothing.
  @usableFromInline var storage: PathStorage?
  /// The ring's first element, cached from ``storage``; `nil` while there is no storage,
  /// when the checkpoint sends every state to ``recordSlowly(_:)``, which makes the ring.
  @usableFromInline var base: UnsafeMutablePointer<Int32>?
  /// The ring's capacity less one: a power of two less one, so `count & mask` is the ring
  /// position.
  @usableFromInline var mask = 0
  /// The first state, kept here until the ring exists.
  @usableFromInline var first: Int32 = 0
  /// How many states were recorded in all.
  @usableFromInline var count = 0
  /// The count at which recording must take the slow path, ``recordSlowly(_:)``: the ring
  /// does not exist yet, is full and may grow, the step limit is reached, or
  /// ``checkInterval`` states went by.
  @usableFromInline var checkpoint = 0
  /// The most states this flow may enter.
  @usableFromInline var limit: Int

  /// Creates an empty recorder for a flow that may enter at most `limit` states.
  ///
  /// Inlinable, so a flow started on every visit of a subflow or for every element of a
  /// map makes its recorder without a call.
  @inlinable
  init(limit: Int) {
    base = nil
    self.limit = max(limit, 0)
  }

  /// Resumes recording a flow whose path was handed over with ``finish()``: how a
  /// synchronous run's dispatching flow takes its path back once its branches have ended.
  ///
  /// Nothing else holds the ring by then, so this recorder is again its only writer.
  @usableFromInline
  init(resuming path: RecordedPath, limit: Int) {
    storage = path.storage
    base = path.storage?.elements
    mask = path.mask
    first = path.first
    count = path.count
    // The next state takes the slow path, which sets the checkpoint right again.
    checkpoint = path.count
    self.limit = max(limit, 0)
  }

  /// Empties the recorder for a new flow that may enter at most `limit` states, keeping
  /// its ring: how a synchronous loop records the visits of the subflows it runs in place
  /// with one ring, allocated once.
  ///
  /// As in a new recorder, the second state takes the slow path (where a nested flow asks
  /// its task whether it was cancelled), and a limit of 0 refuses the first.
  @inlinable @inline(__always)
  mutating func restart(limit: Int) {
    if _slowPath(base == nil) { makeRing() }
    count = 0
    self.limit = max(limit, 0)
    checkpoint = min(1, self.limit)
  }

  /// Makes the smallest ring, for ``restart(limit:)``.
  @usableFromInline
  mutating func makeRing() {
    let created = PathStorage.make(capacity: 8)
    storage = created
    base = created.elements
    mask = 7
  }

  /// Whether the flow entered more states than its limit: only possible once dispatch
  /// branches joined, since ``recordSlowly(_:)`` refuses a state past the limit.
  @usableFromInline
  var isPastLimit: Bool { count > limit }

  /// Whether the next state must be recorded with ``recordSlowly(_:)``: the ring does not
  /// exist yet or may grow, the step limit is reached, or ``checkInterval`` states went by
  /// since the last checkpoint.
  @inlinable @inline(__always)
  var isAtCheckpoint: Bool { count >= checkpoint }

  /// Records one state on the fast path: a store and an increment.
  ///
  /// - Precondition: ``isAtCheckpoint`` is `false`.
  @inlinable @inline(__always)
  mutating func recordBeforeCheckpoint(_ state: Int32) {
    // Not `nil`: a recorder without a ring is always at a checkpoint.
    base.unsafelyUnwrapped[count & mask] = state
    count &+= 1
  }

  /// How many states a long flow records on the fast path, once its ring is full, before
  /// the next checkpoint: the interpreter does what costs too much for every state (a
  /// synchronous run asks its task whether it was cancelled) at checkpoints.
  @usableFromInline static var checkInterval: Int { 4_096 }

  /// Records a state at a checkpoint: checks the step limit, keeps the first state aside,
  /// creates or grows the ring, and moves the checkpoint on. Returns `false`, recording
  /// nothing, when the step limit is reached.
  @usableFromInline
  mutating func recordSlowly(_ state: Int32) -> Bool {
    guard count < limit else { return false }
    if count == 0 && storage == nil {
      first = state
      count = 1
      checkpoint = 1
      return true
    }
    growIfFull()
    base.unsafelyUnwrapped[count & mask] = state
    count += 1
    // Once the ring is as large as it gets, the step limit and the check interval stop the
    // fast path.
    checkpoint =
      mask + 1 < Self.maximumCapacity
      ? min(mask + 1, limit) : min(limit, count + Self.checkInterval)
    return true
  }

  /// Creates the ring once a second state comes, or doubles it when it is full, up to
  /// ``maximumCapacity``.
  private mutating func growIfFull() {
    guard let storage else {
      let created = PathStorage.make(capacity: 8)
      if count > 0 { created.elements[0] = first }
      self.storage = created
      base = created.elements
      mask = 7
      return
    }
    let capacity = mask + 1
    guard count == capacity && capacity < Self.maximumCapacity else { return }
    let larger = PathStorage.make(capacity: capacity * 2)
    larger.elements.initialize(from: storage.elements, count: capacity)
    self.storage = larger
    base = larger.elements
    mask = capacity * 2 - 1
  }

  /// Records the states a dispatch branch entered. They count toward this flow's step
  /// limit: ``isPastLimit`` tells whether they passed it.
  @usableFromInline
  mutating func append(_ branch: RecordedPath) {
    let dropped = branch.count - branch.keptCount
    if dropped > 0 {
      // The branch kept a full ring's worth, which overwrites every slot of this ring: make
      // it full size, and count the dropped states before the kept ones, so the ring stays
      // in order.
      if storage == nil { growIfFull() }
      if mask + 1 < Self.maximumCapacity {
        let full = PathStorage.make(capacity: Self.maximumCapacity)
        storage = full
        base = full.elements
        mask = Self.maximumCapacity - 1
      }
      count += dropped
    }
    branch.forEachKeptState { state in
      if count == 0 && storage == nil {
        first = state
      } else {
        growIfFull()
        base.unsafelyUnwrapped[count & mask] = state
      }
      count += 1
    }
    checkpoint = min(checkpoint, count)
  }

  /// The kept states, oldest first.
  @usableFromInline
  var states: [Int32] {
    RecordedPath(storage: storage, mask: mask, first: first, count: count).states
  }

  /// Ends recording and hands the ring over to the flow that joins this one.
  @usableFromInline
  consuming func finish() -> RecordedPath {
    RecordedPath(storage: storage, mask: mask, first: first, count: count)
  }
}

/// The states a finished flow entered: a read-only view of its recorder's ring.
///
/// `@unchecked Sendable` because ``PathStorage`` is mutable memory: one ``PathRecorder``
/// (noncopyable, so one flow) wrote it; once the recorder hands it over with
/// ``PathRecorder/finish()``, nothing writes it again, and the joining flow only reads it.
@usableFromInline
struct RecordedPath: @unchecked Sendable {
  @usableFromInline let storage: PathStorage?
  @usableFromInline let mask: Int
  @usableFromInline let first: Int32
  /// How many states the flow entered in all.
  @usableFromInline let count: Int

  @usableFromInline
  init(storage: PathStorage?, mask: Int, first: Int32, count: Int) {
    self.storage = storage
    self.mask = mask
    self.first = first
    self.count = count
  }

  /// How many of the states the ring kept.
  var keptCount: Int { storage == nil ? min(count, 1) : min(count, mask + 1) }

  /// Calls `body` with each kept state, oldest first.
  func forEachKeptState(_ body: (Int32) -> Void) {
    guard let storage else {
      if count > 0 { body(first) }
      return
    }
    let base = storage.elements
    for position in count - keptCount..<count {
      body(base[position & mask])
    }
  }

  /// The kept states, oldest first.
  var states: [Int32] {
    var states: [Int32] = []
    states.reserveCapacity(keptCount)
    forEachKeptState { states.append($0) }
    return states
  }
}

/// The memory of a path's ring: one allocation, with the elements stored in the object.
@usableFromInline
final class PathStorage: ManagedBuffer<Void, Int32> {
  /// A ring of `capacity` uninitialized elements. `Int32` is trivial, so elements need no
  /// deinitialization.
  @usableFromInline
  static func make(capacity: Int) -> PathStorage {
    // ManagedBuffer.create returns the dynamic type it was called on.
    unsafeDowncast(create(minimumCapacity: capacity) { _ in }, to: PathStorage.self)
  }

  /// The first element. Stable for the object's life: a managed buffer's elements never
  /// move.
  @usableFromInline
  var elements: UnsafeMutablePointer<Int32> {
    withUnsafeMutablePointerToElements { $0 }
  }
}
