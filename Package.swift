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
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // The hot paths Swift cannot express as cheaply: exact `%.17g` and decimal parsing on
        // 128-bit integers, and byte scans of XML the C compiler vectorizes (see the header).
        .target(name: "CTroveFastPaths"),
        .target(
            name: "TroveCore",
            dependencies: ["CLibXML2", "CTroveFastPaths"]
        ),
        .target(name: "TroveFileIO", dependencies: ["TroveCore"]),
        .target(name: "TroveArchive", dependencies: ["TroveCore"]),
        .target(name: "Trove", dependencies: ["TroveCore", "TroveFileIO", "TroveArchive"]),
        .executableTarget(
            name: "trove",
            dependencies: [
                "Trove",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Helpers more than one test target needs (the seeded generator, the hang guard, the
        // lookup of the built `trove`); a plain target, not a product, so only tests link it.
        .target(name: "TroveTestSupport", path: "Tests/TroveTestSupport"),
        .testTarget(name: "TroveCoreTests", dependencies: ["TroveCore", "TroveTestSupport"]),
        .testTarget(name: "FixtureTests", dependencies: ["Trove", "TroveTestSupport"]),
        .testTarget(name: "TroveArchiveTests", dependencies: ["Trove", "TroveTestSupport"]),
        .testTarget(name: "TroveCLITests", dependencies: ["Trove", "trove", "TroveTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
