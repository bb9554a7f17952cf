/// Records the states a flow enters, keeping the most recent ``maximumCapacity`` of them
/// in a ring, so a run of any length uses constant memory.
///
/// Recording is on the run loop's hot path, so the recorder owns a raw buffer: a store
/// and an increment per state, no uniqueness check, no allocation once the ring is full.
/// The type is noncopyable, so exactly one owner holds the buffer and frees it.
@usableFromInline
struct PathRecorder: ~Copyable {
  /// How many of the most recent states are kept. A power of two.
  @usableFromInline static var maximumCapacity: Int { 1_024 }

  @usableFromInline var base: UnsafeMutablePointer<Int32>
  /// The buffer's capacity less one: a power of two less one, so `count & mask` is the
  /// ring position.
  @usableFromInline var mask: Int
  /// How many states were recorded in all.
  @usableFromInline var count = 0
  /// The count at which ``record(_:)`` must stop by the slow path: the buffer is full and
  /// may grow, or the step limit is reached.
  @usableFromInline var checkpoint: Int
  /// The most states this flow may enter.
  @usableFromInline let limit: Int

  /// Creates an empty recorder for a flow that may enter at most `limit` states.
  @usableFromInline
  init(limit: Int) {
    let capacity = 16
    base = .allocate(capacity: capacity)
    mask = capacity - 1
    self.limit = max(limit, 0)
    checkpoint = min(capacity, self.limit)
  }

  @inlinable
  deinit {
    base.deallocate()
  }

  /// Records one state; returns `false`, recording nothing, when the step limit is reached.
  @inlinable @inline(__always)
  mutating func record(_ state: Int32) -> Bool {
    if _slowPath(count >= checkpoint) {
      guard makeRoom() else { return false }
    }
    base[count & mask] = state
    count &+= 1
    return true
  }

  /// Grows the buffer when it is full and may still grow, and moves the checkpoint on;
  /// returns `false` when the step limit is reached.
  @usableFromInline
  mutating func makeRoom() -> Bool {
    guard count < limit else { return false }
    growIfFull()
    // Once the ring is as large as it gets, only the step limit stops the fast path.
    checkpoint = mask + 1 < Self.maximumCapacity ? min(mask + 1, limit) : limit
    return true
  }

  private mutating func growIfFull() {
    let capacity = mask + 1
    guard count == capacity && capacity < Self.maximumCapacity else { return }
    let larger = UnsafeMutablePointer<Int32>.allocate(capacity: capacity * 2)
    larger.moveInitialize(from: base, count: capacity)
    base.deallocate()
    base = larger
    mask = capacity * 2 - 1
  }

  /// Records the states a dispatch branch entered, `count` in all (more than
  /// `states.count` when the branch's recorder dropped its oldest). They count toward this
  /// flow's step limit, which stops the flow at its next state if they passed it.
  mutating func append(_ states: [Int32], count: Int) {
    let dropped = count - states.count
    if dropped > 0 {
      // The branch kept a full ring's worth, which overwrites every slot of this ring: make
      // it full size, and count the dropped states before the kept ones, so the ring stays
      // in order.
      if mask + 1 < Self.maximumCapacity {
        base.deallocate()
        base = .allocate(capacity: Self.maximumCapacity)
        mask = Self.maximumCapacity - 1
      }
      self.count += dropped
    }
    for state in states {
      growIfFull()
      base[self.count & mask] = state
      self.count += 1
    }
    checkpoint = min(checkpoint, self.count)
  }

  /// The kept states, oldest first.
  var states: [Int32] {
    let kept = min(count, mask + 1)
    return (count - kept..<count).map { base[$0 & mask] }
  }
}

/// `PathRecorder` may move to another task: being noncopyable, its buffer has exactly one
/// owner at a time, so no two tasks can reach it.
extension PathRecorder: @unchecked Sendable {}
