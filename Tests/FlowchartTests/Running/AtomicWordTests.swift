import Testing

@testable import Flowchart

/// The package's atomic word and lock (`Support/`), which stand in for Synchronization's
/// `Atomic` and `Mutex`.
struct AtomicWordTests {
  @Test func loadsWhatWasStored() {
    let word = AtomicWord<UInt8>(7)
    #expect(word.load(ordering: .relaxed) == 7)
    word.store(200, ordering: .releasing)
    #expect(word.load(ordering: .acquiring) == 200)
    word.store(0, ordering: .sequentiallyConsistent)
    #expect(word.load(ordering: .sequentiallyConsistent) == 0)
  }

  @Test func bitwiseOperationsReturnTheValuesBeforeAndAfter() {
    let word = AtomicWord<UInt8>(0b0001)
    let or = word.bitwiseOr(0b0110, ordering: .relaxed)
    #expect(or.oldValue == 0b0001)
    #expect(or.newValue == 0b0111)
    let and = word.bitwiseAnd(~0b0010, ordering: .acquiringAndReleasing)
    #expect(and.oldValue == 0b0111)
    #expect(and.newValue == 0b0101)
    #expect(word.load(ordering: .relaxed) == 0b0101)
  }

  @Test func aSmallValueKeepsItsWidth() {
    let word = AtomicWord<UInt8>(0xFF)
    word.bitwiseAnd(0x0F, ordering: .relaxed)
    #expect(word.load(ordering: .relaxed) == 0x0F)
    let signed = AtomicWord<Int8>(-1)
    #expect(signed.load(ordering: .relaxed) == -1)
    signed.bitwiseAnd(0x7F, ordering: .relaxed)
    #expect(signed.load(ordering: .relaxed) == 127)
  }

  @Test func wrappingAddWrapsAroundAtTheWordsWidth() {
    let word = AtomicWord<Int>(Int.max)
    let added = word.wrappingAdd(1, ordering: .relaxed)
    #expect(added.oldValue == Int.max)
    #expect(added.newValue == Int.min)
    #expect(word.load(ordering: .relaxed) == Int.min)
    word.wrappingAdd(-1, ordering: .relaxed)
    #expect(word.load(ordering: .relaxed) == Int.max)
  }

  @Test func compareExchangeStoresOnlyOverTheExpectedValue() {
    let word = AtomicWord<Int>(3)
    let missed = word.compareExchange(expected: 4, desired: 9, ordering: .acquiringAndReleasing)
    #expect(!missed.exchanged)
    #expect(missed.original == 3)
    #expect(word.load(ordering: .relaxed) == 3)
    let hit = word.compareExchange(expected: 3, desired: -9, ordering: .sequentiallyConsistent)
    #expect(hit.exchanged)
    #expect(hit.original == 3)
    #expect(word.load(ordering: .relaxed) == -9)
  }

  @Test func concurrentAddsAreNotLost() async {
    let counter = SharedCounter()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<1_000 { counter.word.wrappingAdd(1, ordering: .relaxed) }
        }
      }
    }
    #expect(counter.word.load(ordering: .relaxed) == 8_000)
  }

  @Test func concurrentBitsAreNotLost() async {
    let flags = SharedFlags()
    await withTaskGroup(of: Void.self) { group in
      for bit in 0..<8 {
        group.addTask { flags.word.bitwiseOr(1 << bit, ordering: .relaxed) }
      }
    }
    #expect(flags.word.load(ordering: .relaxed) == 0xFF)
  }

  @Test func aLockSerializesUpdatesToItsValue() async {
    let box = LockedArray()
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          for step in 0..<250 { box.lock.withLock { $0.append(task * 1_000 + step) } }
        }
      }
    }
    let values = box.lock.withLock { $0 }
    #expect(values.count == 2_000)
    #expect(Set(values).count == 2_000)
  }

  @Test func aLockPassesThrowsAndResultsThrough() {
    let lock = Lock(5)
    let doubled = lock.withLock { value -> Int in
      value *= 2
      return value
    }
    #expect(doubled == 10)
    #expect(throws: LockRefusal.self) {
      try lock.withLock { (value: inout Int) throws(LockRefusal) in
        value = 0
        throw LockRefusal()
      }
    }
    // A change made before the throw stays: the closure had the value itself.
    #expect(lock.withLock { $0 } == 0)
  }

  @Test func aLockReleasesItsValueWithIt() {
    weak var tracker: LockTracker?
    do {
      let lock = Lock<LockTracker?>(LockTracker())
      tracker = lock.withLock { $0 }
      #expect(tracker != nil)
    }
    #expect(tracker == nil)
  }
}

private final class SharedCounter: Sendable {
  let word = AtomicWord<Int>(0)
}

private final class SharedFlags: Sendable {
  let word = AtomicWord<UInt8>(0)
}

private final class LockedArray: Sendable {
  let lock = Lock<[Int]>([])
}

private final class LockTracker: Sendable {}

private struct LockRefusal: Error {}
