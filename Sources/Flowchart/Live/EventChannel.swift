/// One subscriber's events, between the run that appends them and the stream that reads
/// them: a bounded ring the run appends to, which the reader takes whole.
///
/// Waking a reader for each event (as an `AsyncStream`'s continuation does) costs the run a
/// thread wake-up per event, many times the cost of the event itself. So the reader comes
/// for its events in batches instead:
///
/// - the run appends each event under the channel's lock, and wakes the reader only when
///   the reader waits for an event (after the run was quiet), or when half the limit waits;
/// - the reader takes every event waiting in one step (the two sides swap rings), reads them
///   without touching the run's side, and while the run keeps reporting, comes back after
///   a delay it adapts to the run's pace (so that a batch stays under a quarter of the
///   limit), at most ``pollInterval``; when it then finds nothing, it waits to be woken.
///
/// So an event reaches a busy reader at most about ``pollInterval`` late, and a reader that
/// waits at once; the run wakes its reader about once per quiet spell or per half limit.
///
/// The policy the handle documents holds: events arrive in the order the run appended them;
/// at most `limit` events wait to be taken, and when that many wait the oldest is dropped for
/// the newest, so the run never waits for its reader; ``finish()`` ends the stream after
/// the events already appended.
final class EventChannel: Sendable {
  /// What the run and the reader share, behind ``pending``.
  private struct Pending {
    /// The events not yet taken, oldest at ``head``: a ring once it holds `limit` events
    /// (an array appended to until then, with ``head`` 0).
    var ring: [RunEvent] = []
    /// Where the oldest event is in ``ring``.
    var head = 0
    /// The reader, waiting: for any event, or (between batches) for half the limit.
    var waiter: Waiter?
    /// Numbers the reader's waits, so that a timer that fires late wakes nothing.
    var wait = 0
    /// Whether the run ended (or the reader stopped): no event comes after those in the
    /// ring.
    var isFinished = false
  }

  /// A reader waiting.
  private struct Waiter {
    var continuation: CheckedContinuation<Void, Never>
    /// How many events wake it: 1 after a quiet spell, half the limit between batches
    /// (a timer wakes it sooner).
    var wakesAt: Int
    /// The timer of a wait between batches.
    var timer: Task<Void, Never>?
  }

  /// The most events that wait to be taken.
  let limit: Int
  private let pending = Lock(Pending())

  init(limit: Int) {
    self.limit = max(limit, 1)
  }

  // MARK: - The run's side

  /// Appends `event`, dropping the oldest event waiting when `limit` wait, and wakes the
  /// reader if it waits for that many.
  func append(_ event: RunEvent) {
    let waiter = pending.withLock { pending -> Waiter? in
      guard !pending.isFinished else { return nil }
      if pending.ring.count < limit {
        pending.ring.append(event)
      } else {
        pending.ring[pending.head] = event
        pending.head = pending.head + 1 == limit ? 0 : pending.head + 1
      }
      // Tests the waiter in place: copying it (a continuation and a timer) costs retains.
      guard let wakesAt = pending.waiter?.wakesAt, pending.ring.count >= wakesAt else {
        return nil
      }
      defer { pending.waiter = nil }
      return pending.waiter
    }
    if let waiter {
      waiter.timer?.cancel()
      waiter.continuation.resume()
    }
  }

  /// Ends the stream after the events appended so far.
  func finish() {
    let waiter = pending.withLock { pending -> Waiter? in
      pending.isFinished = true
      defer { pending.waiter = nil }
      return pending.waiter
    }
    if let waiter {
      waiter.timer?.cancel()
      waiter.continuation.resume()
    }
  }

  // MARK: - The reader's side

  /// Hands the reader every event waiting, in `ring` from `head` (`ring` must be empty),
  /// waiting for one if none is; `false` once the stream ended and every event was taken,
  /// or the reading task was cancelled.
  ///
  /// `lastBatch` is how many events the reader's previous batch held (0 when it ended with
  /// a flow waiting): while the run keeps reporting, the reader comes back for more on its
  /// own after `delay` (which it adapts so that a batch stays under a quarter of the limit,
  /// from a yield up to ``pollInterval``), or once half the limit waits, rather than be
  /// woken for each event; once it finds nothing, it waits for the run's next event.
  func take(
    into ring: inout [RunEvent], head: inout Int, lastBatch: Int, delay: inout UInt64
  ) async -> Bool {
    if lastBatch > limit / 4 {
      delay /= 2
    } else if lastBatch < limit / 16 {
      delay = min(max(delay * 2, 1_000), Self.pollInterval)
    }
    var isActive = lastBatch > 0
    while true {
      let outcome = pending.withLock { pending -> TakeOutcome in
        if !pending.ring.isEmpty {
          swap(&ring, &pending.ring)
          head = pending.head
          pending.head = 0
          return .took
        }
        return pending.isFinished ? .ended : .mustWait
      }
      switch outcome {
      case .took: return true
      case .ended: return false
      case .mustWait:
        if Task.isCancelled {
          finish()
          return false
        }
        if isActive && delay < 1_000 {
          isActive = false
          await Task.yield()
        } else if isActive {
          // The run was reporting: give it time to report a batch.
          isActive = false
          await wait(wakingAt: max(limit / 2, 1), after: delay)
        } else {
          await wait(wakingAt: 1, after: nil)
          // The run was quiet: how fast it reports now is not known yet.
          delay = Self.shortestDelay
        }
      }
    }
  }

  /// The longest a reader whose run was reporting waits before it takes the next batch:
  /// how late an event may reach a reader while its run keeps reporting. A run that stops
  /// reporting (it waits, or runs a long state) wakes its reader with its next event.
  static var pollInterval: UInt64 { 1_000_000 }

  /// The delay a reader starts with, and starts again with after its run was quiet.
  static var shortestDelay: UInt64 { 16_000 }

  /// Waits until `count` events wait, `delay` nanoseconds pass (if not `nil`), the stream
  /// ends, or the reading task is cancelled.
  private func wait(wakingAt count: Int, after delay: UInt64?) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let wait = pending.withLock { pending -> Int? in
          if pending.ring.count >= count || pending.isFinished { return nil }
          pending.wait += 1
          pending.waiter = Waiter(continuation: continuation, wakesAt: count, timer: nil)
          return pending.wait
        }
        guard let wait else {
          continuation.resume()
          return
        }
        guard let delay else { return }
        let timer = Task { [self] in
          guard (try? await Task.sleep(nanoseconds: delay)) != nil else { return }
          wake(wait)
        }
        let isWaiting = pending.withLock { pending -> Bool in
          guard pending.wait == wait, pending.waiter != nil else { return false }
          pending.waiter?.timer = timer
          return true
        }
        if !isWaiting { timer.cancel() }
      }
    } onCancel: {
      finish()
    }
  }

  /// Wakes the reader if it is still in wait number `wait`: its timer fired.
  private func wake(_ wait: Int) {
    let waiter = pending.withLock { pending -> Waiter? in
      guard pending.wait == wait else { return nil }
      defer { pending.waiter = nil }
      return pending.waiter
    }
    waiter?.continuation.resume()
  }

  /// What the reader found.
  private enum TakeOutcome {
    /// It took the events waiting.
    case took
    /// The stream ended and every event was taken.
    case ended
    /// Nothing to take yet: wait for the run.
    case mustWait
  }
}

/// Ends a subscription once: when its reader is cancelled, or when the last copy of its
/// stream and iterators is released.
final class EventSubscription: Sendable {
  private let onTermination: Lock<(@Sendable () -> Void)?>

  init(onTermination: @escaping @Sendable () -> Void) {
    self.onTermination = Lock(onTermination)
  }

  func end() {
    let end = onTermination.withLock { end in
      defer { end = nil }
      return end
    }
    end?()
  }

  deinit { end() }
}
