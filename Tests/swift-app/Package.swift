// swift-tools-version: 6.1
import PackageDescription

// An app as a mobile team adds Waymark: the Swift SDK alone, with the server's trait off. It must
// resolve no package but Waymark itself and build with nothing else; scripts/test checks both.
let package = Package(
    name: "ShopApp",
    platforms: [.iOS(.v15), .macOS(.v14)],
    dependencies: [
        .package(name: "Waymark", path: "../..", traits: [])
    ],
    targets: [
        .executableTarget(
            name: "ShopApp",
            dependencies: [.product(name: "WaymarkClient", package: "Waymark"), .product(name: "WaymarkAPI", package: "Waymark")])
    ],
    swiftLanguageModes: [.v6]
)
