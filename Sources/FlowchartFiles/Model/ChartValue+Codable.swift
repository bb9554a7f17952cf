extension ChartValue: Codable {
  /// Decodes any JSON value: `null`, a boolean, a number, a string, an array or an object.
  ///
  /// - Throws: `DecodingError.dataCorrupted` when the value is none of these.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([ChartValue].self) {
      self = .array(value)
    } else if let value = try? container.decode([String: ChartValue].self) {
      self = .object(value)
    } else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription:
          "A chart value is null, a boolean, a number, a string, an array or an object.")
    }
  }

  /// Encodes the value as the JSON value it stands for: what a run snapshot of a chart file
  /// keeps of its context.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }
}
