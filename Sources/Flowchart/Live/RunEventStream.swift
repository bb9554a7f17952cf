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

  let channel: EventChannel
  let subscription: EventSubscription

  init(channel: EventChannel, subscription: EventSubscription) {
    self.channel = channel
    self.subscription = subscription
  }

  /// Makes the stream's one iterator.
  public func makeAsyncIterator() -> Iterator {
    Iterator(channel: channel, subscription: subscription)
  }

  /// Reads a ``RunEventStream``'s events in order.
  public struct Iterator: AsyncIteratorProtocol {
    let channel: EventChannel
    let subscription: EventSubscription
    /// The batch taken from the run: a ring, read from ``head``.
    private var ring: [RunEvent] = []
    private var head = 0
    /// How many of the batch's events were read.
    private var read = 0
    /// How long to wait for the next batch while the run keeps reporting, in nanoseconds.
    private var delay = EventChannel.shortestDelay

    init(channel: EventChannel, subscription: EventSubscription) {
      self.channel = channel
      self.subscription = subscription
    }

    /// The next event, once the run reports it; `nil` after the run's last event, or once
    /// the reading task is cancelled.
    public mutating func next() async -> RunEvent? {
      if read == ring.count {
        // A batch that ends with a flow waiting says the run may be quiet for a while: then
        // the reader waits for the run to wake it rather than come back for more.
        var lastBatch = ring.count
        if lastBatch > 0, ring[(head + lastBatch - 1) % lastBatch].mayBeQuiet { lastBatch = 0 }
        ring.removeAll(keepingCapacity: true)
        read = 0
        guard
          await channel.take(into: &ring, head: &head, lastBatch: lastBatch, delay: &delay)
        else {
          subscription.end()
          return nil
        }
      }
      var index = head + read
      if index >= ring.count { index -= ring.count }
      read += 1
      return ring[index]
    }
  }
}

extension RunEvent {
  /// Whether the event says its flow waits (paused, for input, or for a retry's backoff
  /// delay): the run may report nothing for a while.
  fileprivate var mayBeQuiet: Bool {
    switch kind {
    case .paused, .waitingForInput, .retrying: true
    case .runStarted, .stateEntered, .stateDecided, .stateFailed, .dispatchStarted,
      .branchStarted, .branchEnded, .dispatchJoined, .resumed, .runFinished, .runFailed,
      .attemptFailed, .caught, .branchFailed, .branchSkipped, .branchCancelled:
      false
    }
  }
}
