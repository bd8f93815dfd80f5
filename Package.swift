// swift-tools-version: 6.2
import PackageDescription

// The layers, from the inside out:
//   WaymarkRules   the rule language: parser, diagnostics, printer, JSON form (Foundation only)
//   WaymarkEngine  the on-device runtime: incremental evaluation, scheduler, lifecycle (Foundation only)
//   WaymarkCatalog catalog documents (YAML/JSON) with positions for lint, and event replay
//   waymark        the command-line tool
let package = Package(
    name: "Waymark",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "WaymarkRules", targets: ["WaymarkRules"]),
        .library(name: "WaymarkEngine", targets: ["WaymarkEngine"]),
        .library(name: "WaymarkCatalog", targets: ["WaymarkCatalog"]),
        .executable(name: "waymark", targets: ["waymark"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
    ],
    targets: [
        .target(name: "WaymarkRules"),
        .target(name: "WaymarkEngine", dependencies: ["WaymarkRules"]),
        .target(
            name: "WaymarkCatalog",
            dependencies: ["WaymarkRules", "WaymarkEngine", .product(name: "Yams", package: "Yams")]
        ),
        .executableTarget(
            name: "waymark",
            dependencies: ["WaymarkCatalog", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "WaymarkRulesTests", dependencies: ["WaymarkRules"]),
        .testTarget(name: "WaymarkEngineTests", dependencies: ["WaymarkEngine"]),
        .testTarget(name: "WaymarkCatalogTests", dependencies: ["WaymarkCatalog", "waymark"]),
    ],
    swiftLanguageModes: [.v6]
)
