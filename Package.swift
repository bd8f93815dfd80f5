// swift-tools-version: 6.2
import PackageDescription

// The layers, from the inside out:
//   WaymarkSupport   what several layers share: a lock, RFC 3339 time, JSON writing, event ids, process deadlines (Foundation only)
//   WaymarkRules     the rule language: parser, diagnostics, printer, JSON form (times read as WaymarkSupport does)
//   WaymarkEngine    the on-device runtime: incremental evaluation, scheduler, lifecycle (Foundation only)
//   WaymarkAPI       the wire types servers and clients share: delivered catalog, events, claims (Foundation only)
//   WaymarkClient    the Swift SDK apps link: catalog with ETag and disk cache, engine, event uploads, claims (Foundation only)
//   WaymarkHTML      the HTML sanitizer and Markdown for tip and page content (no dependencies)
//   WaymarkCatalog   authored catalogs (YAML/JSON) with positions for lint; event replay
//   WaymarkDelivery  resolving an authored catalog for one client: targeting (attributes, segments), rollout, variants, media, locale
//   WaymarkStore     the storage protocol the server is written against, and its records
//   WaymarkAnalytics reports, backtests and the eligibility debugger over stored events; segment membership and its refresher
//   WaymarkSQLite    that protocol on an embedded SQLite database (GRDB)
//   WaymarkPostgres  that protocol on PostgreSQL (PostgresNIO), for several servers on one database
//   WaymarkClickHouse the events in ClickHouse (its HTTP interface, AsyncHTTPClient), for the reports of large installations
//   WaymarkNarration spoken narration: what a catalog says aloud, espeak-ng and ffmpeg, the background queue
//   WaymarkServer    the HTTP server (Hummingbird): authoring, delivery, events, rewards
//   WaymarkConsole   the web console on that server: accounts, sessions, authoring forms, publishing
//   WaymarkApplication the composition root: one function builds the server, console and services on a store
//   waymark          the command-line tool: options, logging and metrics set up once, the demo
let package = Package(
    name: "Waymark",
    // The Swift SDK's modules are written for iOS 15 and its peers; the server's need macOS 14.
    platforms: [.macOS(.v14), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "WaymarkSupport", targets: ["WaymarkSupport"]),
        .library(name: "WaymarkRules", targets: ["WaymarkRules"]),
        .library(name: "WaymarkEngine", targets: ["WaymarkEngine"]),
        .library(name: "WaymarkAPI", targets: ["WaymarkAPI"]),
        .library(name: "WaymarkClient", targets: ["WaymarkClient"]),
        .library(name: "WaymarkHTML", targets: ["WaymarkHTML"]),
        .library(name: "WaymarkCatalog", targets: ["WaymarkCatalog"]),
        .library(name: "WaymarkDelivery", targets: ["WaymarkDelivery"]),
        .library(name: "WaymarkStore", targets: ["WaymarkStore"]),
        .library(name: "WaymarkSQLite", targets: ["WaymarkSQLite"]),
        .library(name: "WaymarkPostgres", targets: ["WaymarkPostgres"]),
        .library(name: "WaymarkClickHouse", targets: ["WaymarkClickHouse"]),
        .library(name: "WaymarkAnalytics", targets: ["WaymarkAnalytics"]),
        .library(name: "WaymarkNarration", targets: ["WaymarkNarration"]),
        .library(name: "WaymarkApplication", targets: ["WaymarkApplication"]),
        .executable(name: "waymark", targets: ["waymark"]),
    ],
    // On by default. An app that links only the Swift SDK turns it off (`traits: []` on its
    // `.package` line) and then resolves no other package (see below and docs/swift-sdk.md).
    traits: [
        .trait(name: "Server", description: "The server, console, stores and tools, and the packages they need"),
        .default(enabledTraits: ["Server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // `swift package generate-documentation`: the reference of the modules apps link (scripts/test builds it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .target(name: "WaymarkSupport"),
        .target(name: "WaymarkRules", dependencies: ["WaymarkSupport"]),
        .target(name: "WaymarkEngine", dependencies: ["WaymarkRules", "WaymarkSupport"]),
        .target(name: "WaymarkAPI", dependencies: ["WaymarkRules", "WaymarkEngine", "WaymarkSupport"]),
        .target(name: "WaymarkClient", dependencies: ["WaymarkAPI", "WaymarkEngine", "WaymarkRules", "WaymarkSupport"]),
        .target(name: "WaymarkHTML"),
        .target(
            name: "WaymarkCatalog",
            dependencies: ["WaymarkRules", "WaymarkEngine", "WaymarkHTML", "WaymarkSupport", .product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "WaymarkDelivery",
            dependencies: ["WaymarkCatalog", "WaymarkAPI", "WaymarkEngine", "WaymarkRules", "WaymarkSupport"]
        ),
        .target(name: "WaymarkStore", dependencies: ["WaymarkSupport", "WaymarkRules"]),
        .target(
            name: "WaymarkAnalytics",
            dependencies: [
                "WaymarkStore", "WaymarkCatalog", "WaymarkDelivery", "WaymarkEngine", "WaymarkRules", "WaymarkAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "WaymarkSQLite",
            dependencies: ["WaymarkStore", "WaymarkRules", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "WaymarkPostgres",
            dependencies: [
                "WaymarkStore", "WaymarkSupport", "WaymarkRules",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The analytics of large installations in ClickHouse, over its HTTP interface.
        .target(
            name: "WaymarkClickHouse",
            dependencies: [
                "WaymarkStore", "WaymarkRules", "WaymarkSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "WaymarkNarration",
            dependencies: [
                "WaymarkCatalog", "WaymarkStore", "WaymarkSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "WaymarkServer",
            dependencies: [
                "WaymarkRules", "WaymarkStore", "WaymarkDelivery", "WaymarkCatalog", "WaymarkNarration", "WaymarkSupport", "WaymarkAPI",
                "WaymarkEngine", "WaymarkHTML", "WaymarkAnalytics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/web")]
        ),
        .target(
            name: "WaymarkConsole",
            dependencies: [
                "WaymarkServer", "WaymarkStore", "WaymarkCatalog", "WaymarkRules", "WaymarkEngine", "WaymarkDelivery", "WaymarkAPI",
                "WaymarkAnalytics", "WaymarkNarration", "WaymarkSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/templates"), .copy("Resources/assets")]
        ),
        .target(
            name: "WaymarkApplication",
            dependencies: [
                "WaymarkServer", "WaymarkConsole", "WaymarkAnalytics", "WaymarkNarration", "WaymarkStore", "WaymarkSQLite",
                "WaymarkPostgres", "WaymarkClickHouse",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "waymark",
            dependencies: [
                "WaymarkApplication",
                "WaymarkCatalog", "WaymarkServer", "WaymarkConsole", "WaymarkSQLite", "WaymarkPostgres", "WaymarkClickHouse",
                "WaymarkNarration",
                "WaymarkSupport", "WaymarkAPI", "WaymarkDelivery", "WaymarkEngine", "WaymarkRules", "WaymarkStore", "WaymarkAnalytics",
                .product(name: "Yams", package: "Yams"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            resources: [.copy("Resources/shop.yaml"), .copy("Resources/shop.html"), .copy("Resources/demo")]
        ),
        // Unit tests: pure code, no server, database or process; each builds with its module alone.
        .testTarget(name: "WaymarkSupportTests", dependencies: ["WaymarkSupport"]),
        .testTarget(name: "WaymarkRulesTests", dependencies: ["WaymarkRules"]),
        .testTarget(name: "WaymarkEngineTests", dependencies: ["WaymarkEngine", "WaymarkRules", "WaymarkSupport"]),
        .testTarget(name: "WaymarkClientTests", dependencies: ["WaymarkClient", "WaymarkAPI", "WaymarkSupport"]),
        .testTarget(name: "WaymarkHTMLTests", dependencies: ["WaymarkHTML"]),
        .testTarget(name: "WaymarkCatalogTests", dependencies: ["WaymarkCatalog", "WaymarkEngine", "WaymarkRules"]),
        .testTarget(
            name: "WaymarkDeliveryTests",
            dependencies: ["WaymarkDelivery", "WaymarkAPI", "WaymarkCatalog", "WaymarkEngine", "WaymarkRules"]),
        .testTarget(name: "WaymarkNarrationTests", dependencies: ["WaymarkNarration", "WaymarkCatalog"]),
        .testTarget(
            name: "WaymarkAnalyticsTests",
            dependencies: ["WaymarkAnalytics", "WaymarkStore", "WaymarkSupport", "WaymarkCatalog", "WaymarkEngine", "WaymarkRules"]
        ),
        .testTarget(
            name: "WaymarkServerTests",
            dependencies: [
                "WaymarkServer", "WaymarkSupport", "WaymarkAPI", "WaymarkStore", "WaymarkEngine", "WaymarkRules",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(
            name: "WaymarkConsoleTests",
            dependencies: [
                "WaymarkConsole", "WaymarkStore", "WaymarkEngine", "WaymarkRules", .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        // Integration tests: real servers over sockets, SQLite and PostgreSQL databases, the waymark
        // binary, espeak-ng and ffmpeg. Every suite has a time limit.
        .testTarget(
            name: "WaymarkIntegrationTests",
            dependencies: [
                "WaymarkApplication", "WaymarkServer", "WaymarkConsole", "WaymarkStore", "WaymarkSQLite", "WaymarkPostgres",
                "WaymarkClickHouse", "WaymarkAPI", "WaymarkCatalog", "WaymarkClient", "WaymarkEngine", "WaymarkNarration",
                "WaymarkAnalytics", "WaymarkRules",
                "WaymarkDelivery",
                "WaymarkSupport", "WaymarkTestSupport", "waymark",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // Fresh databases of every store for the integration tests (SQLite, and PostgreSQL where
        // scripts/test starts one), the waymark binary and servers they run, and polling.
        .target(
            name: "WaymarkTestSupport",
            dependencies: [
                "WaymarkStore", "WaymarkSQLite", "WaymarkPostgres", "WaymarkClickHouse", "WaymarkSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/WaymarkTestSupport"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every product of another package is needed by the server's targets only, and only with the
// `Server` trait: without it, SwiftPM resolves none of those packages. The SDK's modules
// (WaymarkSupport, WaymarkRules, WaymarkEngine, WaymarkAPI, WaymarkClient) depend on none.
for target in package.targets {
    target.dependencies = target.dependencies.map { dependency in
        guard case .productItem(let name, let package, let aliases, nil) = dependency else { return dependency }
        return .product(name: name, package: package ?? name, moduleAliases: aliases, condition: .when(traits: ["Server"]))
    }
}

// Every target: members are visible only through the modules a file imports, and existential
// types are spelt `any`. The test command (scripts/test) also turns every warning into an error.
let warningsAreErrors = Context.environment["WAYMARK_WARNINGS_AS_ERRORS"] == "1"
for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility"), .enableUpcomingFeature("ExistentialAny")]
        + (warningsAreErrors ? [.treatAllWarnings(as: .error)] : [])
}
