// The atomic word and the lock the Flowchart module runs on, in C so that the package needs
// neither the Synchronization module (macOS 15 and its peers) nor a package dependency.
//
// Everything here is `static inline`: a call from Swift compiles to the operation itself.
// Every type here must stay at one address from its `init` to its `destroy` (a C atomic and a
// `pthread_mutex_t` must not be moved or copied): the Swift wrappers allocate them
// (`AtomicWord`) or keep them in a class's tail allocation (`Lock`).

#ifndef CFLOWCHARTATOMICS_H
#define CFLOWCHARTATOMICS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

// MARK: - Memory orders

/// The memory orders the Swift wrappers name. A load takes relaxed, acquiring or sequentially
/// consistent; a store relaxed, releasing or sequentially consistent; an update any of them.
typedef enum flowchart_memory_order {
  flowchart_memory_order_relaxed = 0,
  flowchart_memory_order_acquiring = 1,
  flowchart_memory_order_releasing = 2,
  flowchart_memory_order_acquiring_and_releasing = 3,
  flowchart_memory_order_sequentially_consistent = 4,
} flowchart_memory_order;

static inline memory_order flowchart_c11_order(flowchart_memory_order order) {
  switch (order) {
  case flowchart_memory_order_relaxed: return memory_order_relaxed;
  case flowchart_memory_order_acquiring: return memory_order_acquire;
  case flowchart_memory_order_releasing: return memory_order_release;
  case flowchart_memory_order_acquiring_and_releasing: return memory_order_acq_rel;
  case flowchart_memory_order_sequentially_consistent: return memory_order_seq_cst;
  }
  return memory_order_seq_cst;
}

/// The strongest order a load may take that is no stronger than `order` on its acquire side:
/// a compare-exchange's failure order, and a guard against orders a load may not take.
static inline memory_order flowchart_c11_load_order(flowchart_memory_order order) {
  switch (order) {
  case flowchart_memory_order_relaxed:
  case flowchart_memory_order_releasing: return memory_order_relaxed;
  case flowchart_memory_order_acquiring:
  case flowchart_memory_order_acquiring_and_releasing: return memory_order_acquire;
  case flowchart_memory_order_sequentially_consistent: return memory_order_seq_cst;
  }
  return memory_order_seq_cst;
}

/// A store's order: acquiring has no meaning for a store and counts as relaxed.
static inline memory_order flowchart_c11_store_order(flowchart_memory_order order) {
  switch (order) {
  case flowchart_memory_order_relaxed:
  case flowchart_memory_order_acquiring: return memory_order_relaxed;
  case flowchart_memory_order_releasing:
  case flowchart_memory_order_acquiring_and_releasing: return memory_order_release;
  case flowchart_memory_order_sequentially_consistent: return memory_order_seq_cst;
  }
  return memory_order_seq_cst;
}

// MARK: - Atomic word

/// One machine word, only ever read and written by the atomic operations below.
typedef struct flowchart_atomic_word {
  _Atomic(uintptr_t) value;
} flowchart_atomic_word;

/// Sets the word's first value; nothing may read it before.
static inline void flowchart_atomic_word_init(flowchart_atomic_word *word, uintptr_t value) {
  atomic_init(&word->value, value);
}

static inline uintptr_t flowchart_atomic_word_load(
    flowchart_atomic_word *word, flowchart_memory_order order) {
  return atomic_load_explicit(&word->value, flowchart_c11_load_order(order));
}

static inline void flowchart_atomic_word_store(
    flowchart_atomic_word *word, uintptr_t value, flowchart_memory_order order) {
  atomic_store_explicit(&word->value, value, flowchart_c11_store_order(order));
}

/// Returns the value before.
static inline uintptr_t flowchart_atomic_word_fetch_or(
    flowchart_atomic_word *word, uintptr_t operand, flowchart_memory_order order) {
  return atomic_fetch_or_explicit(&word->value, operand, flowchart_c11_order(order));
}

/// Returns the value before.
static inline uintptr_t flowchart_atomic_word_fetch_and(
    flowchart_atomic_word *word, uintptr_t operand, flowchart_memory_order order) {
  return atomic_fetch_and_explicit(&word->value, operand, flowchart_c11_order(order));
}

/// Returns the value before; wraps around on overflow.
static inline uintptr_t flowchart_atomic_word_fetch_add(
    flowchart_atomic_word *word, uintptr_t operand, flowchart_memory_order order) {
  return atomic_fetch_add_explicit(&word->value, operand, flowchart_c11_order(order));
}

/// Stores `desired` if the word holds `*expected`, and returns true; otherwise writes the
/// value it holds to `*expected` and returns false. Strong: never fails spuriously.
static inline bool flowchart_atomic_word_compare_exchange(
    flowchart_atomic_word *word, uintptr_t *expected, uintptr_t desired,
    flowchart_memory_order order) {
  return atomic_compare_exchange_strong_explicit(
      &word->value, expected, desired, flowchart_c11_order(order),
      flowchart_c11_load_order(order));
}

// MARK: - Lock

/// A mutual-exclusion lock: a `pthread_mutex_t`, which Darwin and Linux both have.
typedef struct flowchart_lock {
  pthread_mutex_t mutex;
} flowchart_lock;

/// Returns 0, or the error `pthread_mutex_init` reported.
static inline int flowchart_lock_init(flowchart_lock *lock) {
  return pthread_mutex_init(&lock->mutex, NULL);
}

/// Returns 0; nothing may hold or wait for the lock.
static inline int flowchart_lock_destroy(flowchart_lock *lock) {
  return pthread_mutex_destroy(&lock->mutex);
}

/// Waits until the calling thread holds the lock; returns 0.
static inline int flowchart_lock_lock(flowchart_lock *lock) {
  return pthread_mutex_lock(&lock->mutex);
}

/// Releases the lock, which the calling thread holds; returns 0.
static inline int flowchart_lock_unlock(flowchart_lock *lock) {
  return pthread_mutex_unlock(&lock->mutex);
}

// MARK: - Wall-clock time

/// The system's wall-clock time (`CLOCK_REALTIME`): whole seconds since 1970-01-01 00:00:00 UTC
/// in `*seconds`, and the nanoseconds past them in `*nanoseconds`. The core has no Foundation;
/// this is what its `WallClockTime.now` reads. Returns 0, or -1 when the clock cannot be read
/// (the outputs are then 0).
static inline int flowchart_wall_clock_now(int64_t *seconds, int32_t *nanoseconds) {
  struct timespec now;
  if (clock_gettime(CLOCK_REALTIME, &now) != 0) {
    *seconds = 0;
    *nanoseconds = 0;
    return -1;
  }
  *seconds = (int64_t)now.tv_sec;
  *nanoseconds = (int32_t)now.tv_nsec;
  return 0;
}

// MARK: - Continuous time

/// Nanoseconds by the clock Swift's `ContinuousClock` reads (`CLOCK_BOOTTIME` on Linux,
/// `CLOCK_MONOTONIC_RAW` on Darwin: it goes on while the machine sleeps), from an origin of
/// the system's; 0 when the clock cannot be read. A live run's event times are differences
/// of two readings: one call, without the runtime's conversion to an instant and back.
static inline int64_t flowchart_continuous_nanoseconds(void) {
  struct timespec now;
#if defined(__linux__)
  clockid_t clock = CLOCK_BOOTTIME;
#elif defined(__APPLE__)
  clockid_t clock = CLOCK_MONOTONIC_RAW;
#else
  clockid_t clock = CLOCK_MONOTONIC;
#endif
  if (clock_gettime(clock, &now) != 0) return 0;
  return (int64_t)now.tv_sec * 1000000000 + (int64_t)now.tv_nsec;
}

#endif  // CFLOWCHARTATOMICS_H
