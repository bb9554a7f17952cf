// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Flowchart",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Flowchart", targets: ["Flowchart"])
  ],
  dependencies: [],
  targets: [
    .target(name: "Flowchart"),
    .testTarget(name: "FlowchartTests", dependencies: ["Flowchart"]),
    // Playgrounds: each is a runnable example, `swift run <name>`.
    .executableTarget(
      name: "FirstLaunch", dependencies: ["Flowchart"], path: "Playgrounds/FirstLaunch"),
    .executableTarget(
      name: "Health", dependencies: ["Flowchart"], path: "Playgrounds/Health"),
    .executableTarget(
      name: "Downloads", dependencies: ["Flowchart"], path: "Playgrounds/Downloads"),
    // Benchmarks: `swift run -c release flowchart-benchmarks` (see BENCHMARKS.md).
    .executableTarget(
      name: "flowchart-benchmarks", dependencies: ["Flowchart"], path: "Benchmarks"),
  ],
  swiftLanguageModes: [.v6]
)
