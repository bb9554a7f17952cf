/// The events of a live run, for one subscriber: what ``RunHandle/events(bufferingNewest:)``
/// returns.
///
/// Iterate it with `for await`; it ends after the run's last event
/// (``RunEvent/Kind/runFinished(_:)`` or ``RunEvent/Kind/runFailed(_:)``), or when the
/// reading task is cancelled. Make one iterator per stream: a stream is one subscriber, and
/// two iterators of it would share its events between them.
///
/// The run hands the stream its events in batches: it records each event once, for all its
/// subscribers, and wakes a reader only when the reader waits; the reader takes every event
/// waiting for it at once, then reads them, making each ``RunEvent`` as it is read, without
/// synchronizing with the run again. So a reader costs the run little, however fast the run goes. At most
/// the limit given to ``RunHandle/events(bufferingNewest:)`` events wait to be taken; when
/// more came, the reader takes the newest that many (the oldest are dropped), so the run
/// never waits for its reader, and the run's last event always arrives. Events taken in a
/// batch and not yet read are the reader's: they count toward no limit.
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
    /// What the events without a payload share: the run that names their states.
    private let details: EventDetails
    /// The batch taken from the run, as the run recorded it, read from ``read``: each
    /// ``RunEvent`` is made as it is read. Kept to take the next batch into without
    /// allocating.
    private var records: [EventRecord] = []
    /// How many records the batch holds, and how many of them were read.
    @usableFromInline var count = 0
    @usableFromInline var read = 0
    /// The kinds of the batch's records tagged ``EventTag/payload``, in order, and how many
    /// of them were read.
    private var payloads: [RunEvent.Kind] = []
    private var payloadsRead = 0
    /// How many events the last batch held, or 0 when it ended with a flow waiting.
    private var lastBatch = 0
    /// How long to wait for the next batch while the run keeps reporting, in nanoseconds.
    private var delay = EventLog.shortestDelay

    init(stream: RunEventStream) {
      self.stream = stream
      details = EventDetails(source: stream.source.naming)
    }

    /// The next event, once the run reports it; `nil` after the run's last event, or once
    /// the reading task is cancelled.
    ///
    /// Inlinable, so that reading an event of a batch already taken is a few instructions
    /// and one synchronous call in the caller's loop.
    @inlinable
    public mutating func next() async -> RunEvent? {
      if read < count {
        read += 1
        return event(at: read - 1)
      }
      return await nextBatch()
    }

    /// The event the batch's record `index` stands for: the events are read in order, so
    /// a record tagged ``EventTag/payload`` takes the next of the batch's kinds.
    @usableFromInline
    mutating func event(at index: Int) -> RunEvent {
      let record = records[index]
      guard _slowPath(record.tag == .payload), payloadsRead < payloads.count else {
        return RunEvent(record: record, details: details)
      }
      payloadsRead += 1
      return RunEvent(
        record: record,
        details: EventDetails(source: details.source, payload: payloads[payloadsRead - 1]))
    }

    /// Takes the next batch from the run, and returns its first event.
    @usableFromInline
    mutating func nextBatch() async -> RunEvent? {
      records.removeAll(keepingCapacity: true)
      payloads.removeAll(keepingCapacity: true)
      count = 0
      read = 0
      payloadsRead = 0
      guard
        await stream.source.take(
          for: stream.reader, limit: stream.limit, into: &records, payloads: &payloads,
          lastBatch: lastBatch, delay: &delay)
      else {
        stream.subscription.end()
        return nil
      }
      // A batch that ends with a flow waiting says the run may be quiet for a while: then
      // the reader waits for the run to wake it rather than come back for more.
      lastBatch = records.last?.mayBeQuiet == true ? 0 : records.count
      count = records.count
      read = 1
      return event(at: 0)
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
