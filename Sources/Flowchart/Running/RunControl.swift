import Synchronization

/// What a group of flows is told from outside, read in one atomic load at each state
/// boundary.
///
/// One control serves flows that stop together: a run's top-level flow has one, and each
/// dispatch gives its branches one of their own (a sibling's failure stops them, not the
/// flow that dispatched them). The run loop reads ``flags`` before it enters each state;
/// while no flag is raised, that load is all a boundary costs, so a run that nobody
/// cancels, pauses or observes pays one relaxed load per state.
///
/// Raising a flag never interrupts a state's code: the flows see it at their next boundary
/// (and a cancelled task's asynchronous state sees `Task.isCancelled` on its own).
///
/// ## Growing
///
/// Flags are bits of one word, so a later capability adds a bit and a case to the slow
/// path of ``Interpreter/enter(_:path:control:)``, not a second check: a pause would raise
/// `paused` and have the boundary wait (its cursor is already a value that can be kept), an
/// observer would raise `observed` and have the boundary report the cursor. Every flow that
/// shares the control sees a flag at its next boundary.
///
/// `Task.isCancelled` costs two runtime calls, about a quarter of an asynchronous
/// transition here, so the run loop does not ask the task at every boundary: a cancellation
/// handler on the run's task (and on each dispatching task, for its branches) raises
/// ``Flags/cancelled`` instead.
@usableFromInline
final class RunControl: Sendable {
  /// The flags a boundary reads; bits of one word.
  @usableFromInline
  struct Flags: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8

    @inlinable
    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The flows must stop at their next boundary: the run's task, or for a dispatch's
    /// branches the dispatching task, was cancelled, or a sibling branch failed.
    @inlinable static var cancelled: Flags { Flags(rawValue: 1 << 0) }
    // Bits 1 and up are free for `paused`, `observed` and later flags.
  }

  @usableFromInline let word = Atomic<UInt8>(0)

  @usableFromInline
  init() {}

  /// A control that nothing ever raises: a synchronous run has no task handler to raise
  /// it, and checks its task where it costs nothing measurable (see
  /// ``Flowchart/runSynchronously(with:stepLimit:)``).
  @usableFromInline
  static let inert = RunControl()

  /// Every flag, in one relaxed atomic load.
  @inlinable
  var flags: Flags { Flags(rawValue: word.load(ordering: .relaxed)) }

  /// Whether the flows must stop.
  @inlinable
  var isCancelled: Bool { flags.contains(.cancelled) }

  /// Raises ``Flags/cancelled``; called by a task's cancellation handler, or by a dispatch
  /// when one of its branches fails.
  @usableFromInline
  func cancel() {
    word.bitwiseOr(Flags.cancelled.rawValue, ordering: .relaxed)
  }
}
