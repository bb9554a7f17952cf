import Flowchart

/// The context of the charts in the compiler, printer and declaration tests: a few flags
/// to decide on and a log of what ran.
struct Switches: Sendable {
  var isOn = false
  var word = ""
  var log: [String] = []
}

/// A key type whose cases the compiler checks for exhaustiveness: an enum that is
/// `CaseIterable`.
enum Membership: CaseIterable, Hashable, Sendable {
  case free
  case pro
  case team
}

extension Flowchart {
  /// The exits of the one state named `name`, each as `label -> target name`, in order;
  /// empty when no single state has that name.
  func describedExits(of name: String) -> [String] {
    guard let id = state(named: name) else { return [] }
    return self[id].exits.map { "\($0.label) -> \(self[$0.target].name)" }
  }
}
