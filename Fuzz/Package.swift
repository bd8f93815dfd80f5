// swift-tools-version:5.3
// The libFuzzer targets: the rule parser with the JSON rule decoder (FuzzRules), and the HTML
// sanitizer with Markdown (FuzzHTML). They live in their own package because they need
// `-sanitize=fuzzer`, and in the tools-5.3 layout (a plain target with main.swift) so that SwiftPM
// leaves `main` to libFuzzer. Run them with `Fuzz/run` (see docs/rules.md).
import PackageDescription

let package = Package(
    name: "WaymarkFuzz",
    dependencies: [.package(name: "Waymark", path: "..")],
    targets: [
        .target(
            name: "FuzzRules",
            dependencies: [.product(name: "WaymarkRules", package: "Waymark")],
            swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        ),
        .target(
            name: "FuzzHTML",
            dependencies: [.product(name: "WaymarkHTML", package: "Waymark")],
            swiftSettings: [.unsafeFlags(["-parse-as-library", "-sanitize=fuzzer,address"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        ),
    ]
)
