import CFlowchartAtomics

/// A value behind a mutual-exclusion lock: the package's stand-in for the Synchronization
/// module's `Mutex`, which needs macOS 15 and its peers.
///
/// The lock is a `pthread_mutex_t` (`CFlowchartAtomics`), which must never move: it lives in
/// the tail allocation of a final class, beside the value, so one allocation holds both and
/// neither moves while the lock exists. The struct is noncopyable like `Mutex`, so a `let`
/// of it reads like one.
///
/// The lock is not recursive: calling ``withLock(_:)`` again from inside its closure, on the
/// same lock, deadlocks. Hold it only to read or update the value; call out (callbacks,
/// continuations) after it returns.
package struct Lock<Value>: ~Copyable {
  private let storage: LockStorage<Value>

  /// A lock holding `initialValue`.
  package init(_ initialValue: Value) {
    let buffer = LockStorage<Value>.create(minimumCapacity: 1) { _ in initialValue }
    // `create` returns an instance of the class it is called on.
    storage = unsafeDowncast(buffer, to: LockStorage<Value>.self)
    storage.withUnsafeMutablePointerToElements { lock in
      let error = flowchart_lock_init(lock)
      precondition(error == 0, "pthread_mutex_init failed with error \(error)")
    }
  }

  /// Runs `body` with the value while holding the lock, and returns what it returns.
  package borrowing func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try storage.withUnsafeMutablePointers { value, lock throws(Failure) -> Result in
      flowchart_lock_lock(lock)
      defer { flowchart_lock_unlock(lock) }
      return try body(&value.pointee)
    }
  }
}

/// A lock's value (the header) and its `pthread_mutex_t` (the one element), in one
/// allocation.
private final class LockStorage<Value>: ManagedBuffer<Value, flowchart_lock> {
  deinit {
    // The value (the header) is destroyed by `ManagedBuffer`; the mutex is plain memory once
    // destroyed. Nothing holds the lock: the last reference is going.
    _ = withUnsafeMutablePointerToElements { flowchart_lock_destroy($0) }
  }
}

// A `Lock` is `Sendable` when its value is: the value is read and written only inside
// `withLock`, which holds the pthread mutex for the whole access, so no two threads touch it at
// once; the mutex itself is only used through pthread calls, which are thread-safe; and the
// storage reference never changes after `init`. A `Sendable` value may then move from the
// thread that wrote it to the one that next reads it.
extension Lock: @unchecked Sendable where Value: Sendable {}
