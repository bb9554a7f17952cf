import FlowchartFiles

/// JSON text with two-space indentation and sorted keys, the same bytes for the same value:
/// how definitions are written, so that golden files compare.
enum PrettyJSON {
  /// Writes `value`, its first line at the current position and its others after `indent`.
  static func write(_ value: ChartValue, indent: String, to output: inout String) {
    switch value {
    case .null, .bool, .number, .string:
      output += value.jsonText
    case .array(let elements):
      guard !elements.isEmpty else {
        output += "[]"
        return
      }
      output += "[\n"
      for (index, element) in elements.enumerated() {
        output += indent + "  "
        write(element, indent: indent + "  ", to: &output)
        output += index + 1 < elements.count ? ",\n" : "\n"
      }
      output += indent + "]"
    case .object(let members):
      guard !members.isEmpty else {
        output += "{}"
        return
      }
      output += "{\n"
      let keys = members.keys.sorted()
      for (index, key) in keys.enumerated() {
        output += indent + "  " + ChartValue.string(key).jsonText + ": "
        if key == "BackoffRate", case .number(let rate) = members[key]! {
          // A float, as ASL's validators want it: `2.0`, not `2`.
          output += "\(rate)"
        } else {
          write(members[key]!, indent: indent + "  ", to: &output)
        }
        output += index + 1 < keys.count ? ",\n" : "\n"
      }
      output += indent + "}"
    }
  }
}
