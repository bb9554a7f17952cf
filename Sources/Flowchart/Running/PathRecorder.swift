/// Records the states a flow enters, keeping the most recent ``capacity`` of them in a
/// ring, so a run of any length uses constant memory.
struct PathRecorder: Sendable {
  /// How many of the most recent states are kept.
  static var capacity: Int { 1_000 }

  private var buffer: [Int32] = []
  /// Where the next state overwrites the oldest, once the buffer is full.
  private var head = 0
  /// How many states were recorded in all.
  private(set) var count = 0

  /// Records one state. Allocates only while the ring is filling up.
  @inline(__always)
  mutating func record(_ state: Int32) {
    count &+= 1
    if buffer.count < Self.capacity {
      buffer.append(state)
    } else {
      buffer[head] = state
      head = head + 1 == Self.capacity ? 0 : head + 1
    }
  }

  /// Records every state of `other` in order, and counts all it counted.
  mutating func append(_ other: PathRecorder) {
    let skipped = other.count - other.buffer.count
    for state in other.states {
      record(state)
    }
    count += skipped
  }

  /// The kept states, oldest first.
  var states: [Int32] {
    head == 0 ? buffer : Array(buffer[head...] + buffer[..<head])
  }
}
