import Foundation
import FlowchartFiles

for name in ["first-launch", "health", "form"] {
  let file = try ChartFile.read(contentsOf: URL(fileURLWithPath: "Samples/\(name).json"))
  let json = file.text(in: .json)
  let original = try String(contentsOfFile: "Samples/\(name).json", encoding: .utf8)
  if json != original { print("DIFF \(name)"); print(json) }
  try file.text(in: .xml).write(toFile: "Samples/\(name).xml", atomically: true, encoding: .utf8)
}
