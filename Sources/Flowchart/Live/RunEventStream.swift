/// The events of a live run, for one subscriber: what ``RunHandle/events(bufferingNewest:)``
/// returns.
///
/// Iterate it with `for await`; it ends after the run's last event
/// (``RunEvent/Kind/runFinished(_:)`` or ``RunEvent/Kind/runFailed(_:)``), or when the
/// reading task is cancelled. Make one iterator per stream: a stream is one subscriber, and
/// two iterators of it would share its events between them.
///
/// The run hands the stream its events in batches: it appends each event to the stream's
/// buffer and wakes the reader only when the reader waits, and the reader takes every event
/// waiting at once, then reads them without synchronizing with the run again. So a reader
/// costs the run little, however fast the run goes. The buffer holds at most the limit given
/// to ``RunHandle/events(bufferingNewest:)`` events not yet taken; when it is full, the
/// oldest is dropped for the newest, so the run never waits for its reader, and the run's
/// last event always arrives. Events taken in a batch and not yet read are the reader's:
/// they count toward no limit.
///
/// Releasing the stream and its iterator ends the subscription, as cancelling the reader
/// does.
public struct RunEventStream: AsyncSequence, Sendable {
  /// A stream's element: one event of the run.
  public typealias Element = RunEvent

  let source: any EventSource
  /// The subscriber's number in the run's ``EventLog``.
  let reader: Int
  /// The most events waiting for the subscriber.
  let limit: Int
  let subscription: EventSubscription

  init(source: any EventSource, reader: Int, limit: Int, subscription: EventSubscription) {
    self.source = source
    self.reader = reader
    self.limit = limit
    self.subscription = subscription
  }

  /// Makes the stream's one iterator.
  public func makeAsyncIterator() -> Iterator {
    Iterator(stream: self)
  }

  /// Reads a ``RunEventStream``'s events in order.
  public struct Iterator: AsyncIteratorProtocol {
    private let stream: RunEventStream
    /// The batch taken from the run, as records, and the kinds of those tagged
    /// ``EventTag/payload``, in order.
    private var batch: [EventRecord] = []
    private var payloads: [RunEvent.Kind] = []
    /// How many of the batch's records, and of its payloads, were read.
    private var read = 0
    private var payloadsRead = 0
    /// How long to wait for the next batch while the run keeps reporting, in nanoseconds.
    private var delay = EventLog.shortestDelay

    init(stream: RunEventStream) {
      self.stream = stream
    }

    /// The next event, once the run reports it; `nil` after the run's last event, or once
    /// the reading task is cancelled.
    public mutating func next() async -> RunEvent? {
      if read == batch.count {
        // A batch that ends with a flow waiting says the run may be quiet for a while: then
        // the reader waits for the run to wake it rather than come back for more.
        var lastBatch = batch.count
        if let last = batch.last, last.mayBeQuiet { lastBatch = 0 }
        batch.removeAll(keepingCapacity: true)
        payloads.removeAll(keepingCapacity: true)
        read = 0
        payloadsRead = 0
        guard
          await stream.source.take(
            for: stream.reader, limit: stream.limit, into: &batch, payloads: &payloads,
            lastBatch: lastBatch, delay: &delay)
        else {
          stream.subscription.end()
          return nil
        }
      }
      let record = batch[read]
      read += 1
      var payload: RunEvent.Kind?
      if record.tag == .payload, payloadsRead < payloads.count {
        payload = payloads[payloadsRead]
        payloadsRead += 1
      }
      return stream.source.event(from: record, payload: payload)
    }
  }
}

extension EventRecord {
  /// Whether the record says its flow waits (paused, for input, or for a retry's backoff
  /// delay): the run may report nothing for a while.
  ///
  /// A retry's wait is recorded with its payload; telling it from the other payloads would
  /// cost the reader a look at it, so a retry's wait is treated as possibly quiet along
  /// with every payload kind: they are rare.
  fileprivate var mayBeQuiet: Bool {
    switch tag {
    case .paused, .waitingForInput, .payload: true
    case .runStarted, .entered, .decidedDone, .decidedYes, .decidedNo, .decidedExit,
      .dispatchStarted, .branchStarted, .branchEnded, .dispatchJoined, .resumed,
      .branchSkipped, .branchCancelled:
      false
    }
  }
}
