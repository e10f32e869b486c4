// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Trove",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Trove", targets: ["Trove"]),
        .executable(name: "trove", targets: ["trove"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .target(
            name: "TroveCore",
            dependencies: [
                "CLibXML2",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(name: "TroveStore", dependencies: ["TroveCore"]),
        .target(name: "Trove", dependencies: ["TroveCore", "TroveStore"]),
        .executableTarget(
            name: "trove",
            dependencies: [
                "Trove",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "TroveCoreTests", dependencies: ["TroveCore"]),
        .testTarget(name: "FixtureTests", dependencies: ["Trove"]),
        .testTarget(name: "TroveCLITests", dependencies: ["Trove", "trove"]),
    ],
    swiftLanguageModes: [.v6]
)
