// The specializations of the synchronous loop (`Interpreter+Synchronous.swift`): constants
// that say whether it reports to a live run and which boundaries it reads.

/// Whether a specialization of the synchronous loop reports to a live run's monitor, and
/// whether it reads its control's flags at all: constants, so the unreported
/// specializations have no code for reporting, and the uncontrolled one no flags load.
@usableFromInline
protocol BoundaryReporting {
  /// Whether the loop reports.
  static var isOn: Bool { get }
  /// Whether the loop reads its control's flags at each boundary.
  static var readsFlags: Bool { get }
  /// Whether a loop that reads no flags asks its task whether it was cancelled before the
  /// flow's first state (as at every checkpoint of its path).
  static var asksTaskAtStart: Bool { get }
}

extension BoundaryReporting {
  @inlinable static var asksTaskAtStart: Bool { true }
}

/// The synchronous loop of `runSynchronously`, whose control (``RunControl/inert``) nothing
/// raises: a boundary reads no flag.
@usableFromInline
enum Uncontrolled: BoundaryReporting {
  @inlinable static var isOn: Bool { false }
  @inlinable static var readsFlags: Bool { false }
}

/// The synchronous loop of an asynchronous run nobody observes: a boundary reads the
/// flags, of which only ``RunControl/Flags/cancelled`` can be raised.
@usableFromInline
enum Unreported: BoundaryReporting {
  @inlinable static var isOn: Bool { false }
  @inlinable static var readsFlags: Bool { true }
}

/// The synchronous loop of a nested run: a synchronous subflow's inner run, or a map's
/// element run inline (``Interpreter/runNested(from:context:control:)``). It is one state of the
/// outer run, whose boundaries read the cancellation: so it does not ask its task before its
/// first state nor after its last, only at the later checkpoints of its path (its second
/// state, and at least every ``PathRecorder/checkInterval`` states) and when a state throws.
@usableFromInline
enum Nested: BoundaryReporting {
  @inlinable static var isOn: Bool { false }
  @inlinable static var readsFlags: Bool { false }
  @inlinable static var asksTaskAtStart: Bool { false }
}

/// The synchronous loop of a live run.
@usableFromInline
enum Reported: BoundaryReporting {
  @inlinable static var isOn: Bool { true }
  @inlinable static var readsFlags: Bool { true }
}
