import CFlowchartAtomics

/// An integer read and written only by atomic operations, at one address for its whole life.
///
/// The run loop's flags (``RunControl``) and a scripted chart's visit counter use it in place
/// of the Synchronization module's `Atomic`, which needs macOS 15 and its peers. The word is a
/// C11 `_Atomic(uintptr_t)` (`CFlowchartAtomics`), allocated once by `init` and freed by
/// `deinit`: a C atomic must never move, and a Swift value can, so the struct holds only a
/// pointer to it. The struct is noncopyable, so exactly one owner frees the word.
///
/// `Value` is stored widened to a word (sign-extended when signed) and each read truncates it
/// back, so loads, stores and bitwise operations behave as on a `Value`.
/// Arithmetic and compare-exchange, which would see the widened bits, are offered only where
/// `Value` is `Int`.
///
/// ## Memory orders
///
/// Each operation takes its order, as C11's `_explicit` operations do:
/// - `.relaxed`: the operation is atomic and nothing else; the run loop's flags need no more,
///   because a flag only asks a flow to stop or wait and carries no data with it.
/// - `.acquiring` / `.releasing` / `.acquiringAndReleasing`: a releasing write makes the
///   writer's earlier writes visible to a thread whose acquiring read sees its value.
/// - `.sequentiallyConsistent`: and all such operations appear in one order to every thread.
///
/// A load treats `.releasing` as `.relaxed` (and `.acquiringAndReleasing` as `.acquiring`), a
/// store treats `.acquiring` as `.relaxed` (and `.acquiringAndReleasing` as `.releasing`), as
/// C11 allows a load and a store only the orders that have a meaning for them.
@usableFromInline
struct AtomicWord<Value: FixedWidthInteger>: ~Copyable {
  @usableFromInline let word: UnsafeMutablePointer<flowchart_atomic_word>

  /// A word holding `initialValue`.
  @inlinable
  init(_ initialValue: Value) {
    precondition(Value.bitWidth <= UInt.bitWidth, "an atomic word holds at most a word")
    word = .allocate(capacity: 1)
    flowchart_atomic_word_init(word, UInt(truncatingIfNeeded: initialValue))
  }

  deinit {
    word.deallocate()
  }

  @inlinable
  func load(ordering: AtomicWordOrdering) -> Value {
    Value(truncatingIfNeeded: flowchart_atomic_word_load(word, ordering.order))
  }

  @inlinable
  func store(_ value: Value, ordering: AtomicWordOrdering) {
    flowchart_atomic_word_store(word, UInt(truncatingIfNeeded: value), ordering.order)
  }

  /// Sets the bits of `operand`; returns the values before and after.
  @inlinable
  @discardableResult
  func bitwiseOr(_ operand: Value, ordering: AtomicWordOrdering)
    -> (oldValue: Value, newValue: Value)
  {
    let old = Value(
      truncatingIfNeeded: flowchart_atomic_word_fetch_or(
        word, UInt(truncatingIfNeeded: operand), ordering.order))
    return (old, old | operand)
  }

  /// Keeps only the bits of `operand`; returns the values before and after.
  @inlinable
  @discardableResult
  func bitwiseAnd(_ operand: Value, ordering: AtomicWordOrdering)
    -> (oldValue: Value, newValue: Value)
  {
    let old = Value(
      truncatingIfNeeded: flowchart_atomic_word_fetch_and(
        word, UInt(truncatingIfNeeded: operand), ordering.order))
    return (old, old & operand)
  }
}

extension AtomicWord where Value == Int {
  /// Adds `operand`, wrapping around on overflow; returns the values before and after.
  @inlinable
  @discardableResult
  func wrappingAdd(_ operand: Int, ordering: AtomicWordOrdering)
    -> (oldValue: Int, newValue: Int)
  {
    let old = Int(
      truncatingIfNeeded: flowchart_atomic_word_fetch_add(
        word, UInt(truncatingIfNeeded: operand), ordering.order))
    return (old, old &+ operand)
  }

  /// Stores `desired` if the word holds `expected`. Returns whether it did, and the value the
  /// word held (`expected` when it did). Never fails spuriously. On failure the read has the
  /// load's part of `ordering`.
  @inlinable
  func compareExchange(expected: Int, desired: Int, ordering: AtomicWordOrdering)
    -> (exchanged: Bool, original: Int)
  {
    var original = UInt(truncatingIfNeeded: expected)
    let exchanged = flowchart_atomic_word_compare_exchange(
      word, &original, UInt(truncatingIfNeeded: desired), ordering.order)
    return (exchanged, Int(truncatingIfNeeded: original))
  }
}

/// The memory order of an ``AtomicWord`` operation (see "Memory orders" there).
@usableFromInline
struct AtomicWordOrdering: Sendable {
  @usableFromInline let order: flowchart_memory_order

  @inlinable
  init(_ order: flowchart_memory_order) { self.order = order }

  /// Atomic, and no ordering with other memory.
  @inlinable static var relaxed: Self { Self(flowchart_memory_order_relaxed) }
  /// Later reads and writes of this thread stay after it.
  @inlinable static var acquiring: Self { Self(flowchart_memory_order_acquiring) }
  /// Earlier reads and writes of this thread stay before it.
  @inlinable static var releasing: Self { Self(flowchart_memory_order_releasing) }
  /// Both ``acquiring`` and ``releasing``.
  @inlinable static var acquiringAndReleasing: Self {
    Self(flowchart_memory_order_acquiring_and_releasing)
  }
  /// Acquiring and releasing, in one order every thread sees.
  @inlinable static var sequentiallyConsistent: Self {
    Self(flowchart_memory_order_sequentially_consistent)
  }
}

// An `AtomicWord` is `Sendable`: the pointer is the only stored property, it never changes,
// and the word it points to is read and written only through the C11 atomic operations
// above (`init` writes it before the value can be shared; `deinit` frees it when the one owner
// ends, so no other thread can be using it).
extension AtomicWord: @unchecked Sendable {}
