import Flowchart

// The shapes every JSON element of a chart file is checked against, written once: an array
// of elements, and an object with a fixed set of keys, whose unknown keys are reported (with
// a suggestion) in one place. XML's counterpart is `XMLChartBuilder.check`.

extension JSONChartBuilder {
  /// The elements of `node`, an array; otherwise `nil`, and "`shape`, not <its type>."
  /// recorded.
  mutating func array(_ node: JSONNode, _ shape: String) -> [JSONNode]? {
    guard case .array(let elements) = node.kind else {
      problems.malformed("\(shape), not \(node.typeName).", at: node.location)
      return nil
    }
    return elements
  }

  /// The members of `node`, an object whose keys are `keys`, in the order written; each
  /// other key is recorded (`Unknown key "k" in <place>: its keys are <listed>`, with the
  /// closest key suggested) and left out. `nil`, and "`shape`, not <its type>." recorded,
  /// when `node` is not an object.
  mutating func object(
    _ node: JSONNode, _ shape: String, keys: [String], in place: String, listed: String
  ) -> [JSONNode.Member]? {
    guard case .object(let members) = node.kind else {
      problems.malformed("\(shape), not \(node.typeName).", at: node.location)
      return nil
    }
    return members.filter { member in
      guard keys.contains(member.key) else {
        problems.unknown(
          member.key, "Unknown key \"\(member.key)\" in \(place): its keys are \(listed)",
          among: keys, at: member.keyLocation)
        return false
      }
      return true
    }
  }
}
