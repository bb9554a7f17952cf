// A live run's events, from the subscriber's side: what a stream reads from (`EventSource`,
// the run), how a reader takes its batch of records and waits for more, and how a
// subscription ends once. The records and the ring they wait in are in `EventChannel.swift`.

/// What names an event's kind, state and branch: the chart's graph, which every event of a
/// run holds (through ``EventDetails``) so that it reads them when asked, long after.
protocol EventNaming: AnyObject, Sendable {
  /// The kind of event a record stands for; `payload` is the kind itself for a record
  /// tagged ``EventTag/payload``.
  func kind(of record: EventRecord, payload: RunEvent.Kind?) -> RunEvent.Kind
  /// The name of the state `state`.
  func stateName(of state: Int32) -> String
  /// The name of branch `branch` (from zero) of the dispatch `dispatch`, or `nil` when it
  /// has none or there is no such branch: the number comes from a reader, so it is checked
  /// (the graph's own `branchName(ofDispatch:branch:)` trusts its caller).
  func checkedBranchName(ofDispatch dispatch: Int32, branch: Int) -> String?
}

/// What a subscriber's stream reads from: a live run, which keeps the records under its
/// lock, and whose graph names the events made of them.
protocol EventSource: AnyObject, Sendable {
  /// What names the stream's events: the run's graph, not the run, so that an event a
  /// subscriber keeps does not keep its run alive once the stream is gone.
  var naming: any EventNaming { get }

  /// Runs `body` on the run's event log, under the run's lock.
  func withEventLog<Result>(_ body: (inout EventLog) -> Result) -> Result
}

extension EventSource {
  /// Ends reader `id`'s subscription.
  func unsubscribe(_ id: Int) {
    withEventLog { $0.unsubscribe(id) }?.resume()
  }

  /// Stops reader `id` (its task was cancelled) and wakes it if it waits.
  func stop(_ id: Int) {
    withEventLog { $0.stop(id) }?.resume()
  }

  /// Hands reader `id` every record waiting for it, appended to `batch` (and the payload
  /// kinds to `payloads`), waiting for one if none is; `false` once the stream ended and
  /// every record was taken, or the reading task was cancelled.
  ///
  /// `lastBatch` is how many events the reader's previous batch held (0 when it ended with a
  /// flow waiting): while the run keeps reporting, the reader comes back for more on its own
  /// after `delay` (which it adapts so that a batch stays under a quarter of the limit, from
  /// a yield up to ``EventLog/pollInterval``), or once half the limit waits, rather than be
  /// woken for each event; once it finds nothing, it waits for the run's next event.
  func take(
    for id: Int, limit: Int, into batch: inout [EventRecord],
    payloads: inout [RunEvent.Kind], lastBatch: Int, delay: inout UInt64
  ) async -> Bool {
    if lastBatch > limit / 4 {
      delay /= 2
    } else if lastBatch < limit / 16 {
      delay = min(max(delay * 2, 1_000), EventLog.pollInterval)
    }
    var isActive = lastBatch > 0
    while true {
      switch withEventLog({ $0.take(for: id, into: &batch, payloads: &payloads) }) {
      case .took: return true
      case .ended: return false
      case .mustWait:
        if Task.isCancelled {
          stop(id)
          return false
        }
        if isActive && delay < 1_000 {
          isActive = false
          await Task.yield()
        } else if isActive {
          // The run was reporting: give it time to report a batch.
          isActive = false
          await wait(for: id, wakingAt: max(limit / 2, 1), after: delay)
        } else {
          await wait(for: id, wakingAt: 1, after: nil)
          // The run was quiet: how fast it reports now is not known yet.
          delay = EventLog.shortestDelay
        }
      }
    }
  }

  /// Waits until `count` records wait for reader `id`, `delay` nanoseconds pass (if not
  /// `nil`), the stream ends, or the reading task is cancelled.
  private func wait(for id: Int, wakingAt count: Int, after delay: UInt64?) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let wait = withEventLog {
          $0.beginWait(for: id, wakingAt: count, continuation: continuation)
        }
        guard let wait else {
          continuation.resume()
          return
        }
        guard let delay else { return }
        let timer = Task { [self] in
          guard (try? await Task.sleep(nanoseconds: delay)) != nil else { return }
          withEventLog { $0.endWait(for: id, wait: wait) }?.resume()
        }
        if !withEventLog({ $0.setTimer(timer, for: id, wait: wait) }) { timer.cancel() }
      }
    } onCancel: {
      stop(id)
    }
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
