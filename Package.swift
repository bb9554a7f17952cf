// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Flowchart",
  // Clock and Duration need macOS 13 and its peers. The run loop's atomic word and lock come
  // from CFlowchartAtomics (C11 atomics, pthread), not from Synchronization (macOS 15).
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  products: [
    .library(name: "Flowchart", targets: ["Flowchart"]),
    .library(name: "FlowchartFiles", targets: ["FlowchartFiles"]),
    .executable(name: "flowchart", targets: ["FlowchartCLI"]),
    // Charts as test fixtures: scripted runs, routes, coverage, golden text, a test clock.
    .library(name: "FlowchartTesting", targets: ["FlowchartTesting"]),
    // Charts exported to the Amazon States Language, and the entry point its tasks call.
    .library(name: "FlowchartStepFunctions", targets: ["FlowchartStepFunctions"]),
    // Run stores that outlive the process: a directory of files, and SQLite with the trait.
    .library(name: "FlowchartStores", targets: ["FlowchartStores"]),
  ],
  // The SQLite run store needs the system's SQLite (`libsqlite3-dev` on Linux), so it is off
  // by default: `swift build --traits SQLite` here, `traits: ["SQLite"]` on the dependency in
  // another package. Without it nothing of the package names sqlite3.
  traits: [
    .trait(
      name: "SQLite",
      description:
        "FlowchartStores' SQLiteRunStore, over the system's SQLite (libsqlite3-dev on Linux).")
  ],
  dependencies: [],
  targets: [
    .target(name: "Flowchart", dependencies: ["CFlowchartAtomics"]),
    // The atomic word and the lock the core runs on: C11 `stdatomic.h` and a pthread mutex,
    // `static inline` in one header. Part of the Flowchart library, not a package dependency.
    .target(name: "CFlowchartAtomics"),
    .testTarget(
      name: "FlowchartTests", dependencies: ["Flowchart", "FlowchartTesting"],
      exclude: ["Durable/Fixtures"]),
    // Charts in files (JSON and XML), bound to code by name; Foundation is allowed here.
    .target(name: "FlowchartFiles", dependencies: ["Flowchart"]),
    .testTarget(name: "FlowchartFilesTests", dependencies: ["FlowchartFiles", "Flowchart"]),
    // The `flowchart` command-line tool: `swift run flowchart --help`. Its directory is not
    // named `flowchart`, which would clash with `Flowchart` on case-insensitive file systems.
    .executableTarget(
      name: "FlowchartCLI",
      // Never FlowchartTesting: the tool must not link Swift Testing (`libTesting` lives in
      // the toolchain, Testing.framework in Xcode, so such a binary fails to launch outside
      // them). `flowchart routes` uses the core's `package` route walk instead. Check with
      // `ldd $(swift build --show-bin-path)/flowchart | grep -i testing`: it prints nothing.
      dependencies: ["Flowchart", "FlowchartFiles", "FlowchartStepFunctions", "FlowchartStores"]),
    .testTarget(
      name: "FlowchartCLITests",
      dependencies: ["FlowchartCLI", "FlowchartFiles", "FlowchartStores"]),
    // AWS Step Functions: a compiled chart as an Amazon States Language definition, and "run
    // one state of this chart on this JSON" for the tasks. Foundation is allowed here.
    .target(name: "FlowchartStepFunctions", dependencies: ["Flowchart", "FlowchartFiles"]),
    .testTarget(
      name: "FlowchartStepFunctionsTests",
      dependencies: [
        "FlowchartStepFunctions", "FlowchartFiles", "Flowchart", "FlowchartTesting",
        "HealthOnStepFunctions",
      ],
      exclude: ["Golden"]),
    // Run stores: a directory of files (Foundation is allowed here) and, with the `SQLite`
    // trait, SQLite through the system library below. No package dependency.
    .target(
      name: "FlowchartStores",
      dependencies: ["Flowchart", .target(name: "CSQLite", condition: .when(traits: ["SQLite"]))]
    ),
    // The system's SQLite (`sqlite3.h`, `-lsqlite3`): the Apple SDKs have it; on Linux it needs
    // `libsqlite3-dev`. Built only with the `SQLite` trait.
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
    // The stores' conformance suite and kill tests (child processes killed mid-save).
    .testTarget(
      name: "FlowchartStoresTests",
      dependencies: [
        "FlowchartStores", "Flowchart",
        .target(name: "CSQLite", condition: .when(traits: ["SQLite"])),
      ]),
    // Depends on the toolchain's Swift Testing (`import Testing`), and on Foundation for
    // golden files and the record-mode environment variable.
    .target(name: "FlowchartTesting", dependencies: ["Flowchart"]),
    // Golden files are read from beside the tests (`#filePath`), not bundled.
    .testTarget(
      name: "FlowchartTestingTests", dependencies: ["FlowchartTesting", "Flowchart"],
      exclude: ["Golden"]),
    // Playgrounds: each is a runnable example, `swift run <name>`.
    .executableTarget(
      name: "FirstLaunch", dependencies: ["Flowchart"], path: "Playgrounds/FirstLaunch"),
    .executableTarget(
      name: "Health", dependencies: ["Flowchart"], path: "Playgrounds/Health"),
    .executableTarget(
      name: "Downloads", dependencies: ["Flowchart"], path: "Playgrounds/Downloads"),
    .executableTarget(
      name: "PhotoOrder", dependencies: ["Flowchart"], path: "Playgrounds/PhotoOrder"),
    .executableTarget(
      name: "ImageUploads", dependencies: ["Flowchart"], path: "Playgrounds/ImageUploads"),
    .executableTarget(
      name: "FileChart", dependencies: ["Flowchart", "FlowchartFiles"],
      path: "Playgrounds/FileChart"),
    .executableTarget(
      name: "DurableOrder", dependencies: ["Flowchart", "FlowchartStores"],
      path: "Playgrounds/DurableOrder"),
    // The Health workflow on AWS Step Functions: `export` writes its definition, `handle`
    // answers one task on standard input (the body of a Lambda function or an activity
    // worker), with the one chart both share. `.ci/stepfunctions.sh` runs it on moto.
    .executableTarget(
      name: "HealthOnStepFunctions",
      dependencies: ["Flowchart", "FlowchartFiles", "FlowchartStepFunctions"],
      path: "Playgrounds/HealthOnStepFunctions"),
    // Benchmarks: `swift run -c release flowchart-benchmarks` (see BENCHMARKS.md).
    .executableTarget(
      name: "flowchart-benchmarks",
      dependencies: [
        "Flowchart", "FlowchartFiles", "FlowchartStores",
        .target(name: "CSQLite", condition: .when(traits: ["SQLite"])),
      ],
      path: "Benchmarks"),
  ],
  swiftLanguageModes: [.v6]
)
