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
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
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
        ),
        .executableTarget(
            name: "DeliveryBenchmarks",
            dependencies: [
                .product(name: "WaymarkDelivery", package: "Waymark"),
                .product(name: "WaymarkCatalog", package: "Waymark"),
                .product(name: "WaymarkAPI", package: "Waymark"),
                .product(name: "WaymarkAnalytics", package: "Waymark"),
                .product(name: "WaymarkSQLite", package: "Waymark"),
                .product(name: "WaymarkStore", package: "Waymark"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/DeliveryBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "AnalyticsBenchmarks",
            dependencies: [
                .product(name: "WaymarkAnalytics", package: "Waymark"),
                .product(name: "WaymarkSQLite", package: "Waymark"),
                .product(name: "WaymarkPostgres", package: "Waymark"),
                .product(name: "WaymarkClickHouse", package: "Waymark"),
                .product(name: "WaymarkStore", package: "Waymark"),
                .product(name: "WaymarkCatalog", package: "Waymark"),
                .product(name: "WaymarkSupport", package: "Waymark"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/AnalyticsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Not a package-benchmark suite: a yardstick the server benchmark (wrk/run) runs beside wrk.
        .executableTarget(
            name: "SQLiteBaseline",
            dependencies: [
                .product(name: "WaymarkSupport", package: "Waymark"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/SQLiteBaseline"
        ),
        // The same, for catalog delivery: the framework answering prepared bytes and doing nothing else.
        .executableTarget(
            name: "HummingbirdFloor",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/HummingbirdFloor"
        ),
    ]
)
