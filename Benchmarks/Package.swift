// swift-tools-version: 6.2
import PackageDescription

// Benchmarks live in their own package so that the main build and CI stay light.
// Run: cd Benchmarks && swift package --disable-sandbox benchmark
let package = Package(
    name: "WaymarkBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Waymark", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                .product(name: "WaymarkEngine", package: "Waymark"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/EngineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
