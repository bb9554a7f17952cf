/// How the tool exits: the status a shell sees in `$?`.
///
/// The codes follow the conventions of Swift command-line tools built with
/// swift-argument-parser, which take theirs from BSD's `sysexits.h`.
struct ExitCode: Hashable, Sendable, CustomStringConvertible {
  /// The status.
  let rawValue: Int32

  /// 0: the command did what it was asked; every file was valid.
  static let success = ExitCode(rawValue: 0)
  /// 1: a chart file is invalid or cannot be read, or a run did not reach a final state.
  static let failure = ExitCode(rawValue: 1)
  /// 64 (`EX_USAGE`): the command line is wrong: an unknown command or option, a missing or
  /// invalid argument. Nothing was read or run.
  static let usageError = ExitCode(rawValue: 64)

  /// The status as a number.
  var description: String { "\(rawValue)" }
}
