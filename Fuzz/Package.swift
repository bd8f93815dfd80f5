// swift-tools-version:5.3
// The libFuzzer target for the rule parser and the JSON rule decoder. It lives in its own package
// because it needs `-sanitize=fuzzer`, and in the tools-5.3 layout (a plain target with main.swift)
// so that SwiftPM leaves `main` to libFuzzer. Run it with `Fuzz/run` (see the README).
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
    ]
)
