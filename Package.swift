// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Trove",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Trove", targets: ["Trove"]),
        .executable(name: "trove", targets: ["trove"]),
        // Checks for test suites that keep property lists as fixtures (round trips, comparisons
        // by key path, golden files, Codable fixtures), for Swift Testing and XCTest alike.
        .library(name: "TroveTesting", targets: ["TroveTesting"]),
        // A plist snapshot strategy for pointfreeco/swift-snapshot-testing, kept apart so that
        // TroveTesting's users do not pull that package in.
        .library(name: "TroveSnapshotTesting", targets: ["TroveSnapshotTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Descriptors, errno values and paths for the file layer.
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
        // Debouncing for FileWatcher, so that an editor's save (write, then rename) is one event.
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.0.0"),
        // Only for TroveSnapshotTesting. Its SnapshotTesting target builds without swift-syntax,
        // which the package still resolves (clones) for its inline-snapshot target.
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.17.0"),
        // `swift package generate-documentation --target Trove` builds Sources/Trove/Trove.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
        .target(
            name: "TroveFileIO",
            dependencies: [
                "TroveCore",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        ),
        .target(name: "TroveArchive", dependencies: ["TroveCore"]),
        .target(
            name: "TroveStore",
            dependencies: ["TroveCore", "TroveFileIO", "TroveArchive", .product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "TrovePreferences",
            dependencies: ["TroveCore", "TroveFileIO", "TroveStore", .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "Trove", dependencies: ["TroveCore", "TroveFileIO", "TroveArchive", "TroveStore", "TrovePreferences"]),
        .target(name: "TroveTesting", dependencies: ["Trove"]),
        .target(
            name: "TroveSnapshotTesting",
            dependencies: ["Trove", .product(name: "SnapshotTesting", package: "swift-snapshot-testing")]),
        .executableTarget(
            name: "trove",
            dependencies: [
                "Trove",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Runnable samples (Samples/README.md); built with everything else, so CI builds them.
        .executableTarget(name: "sample-custom-store-type", dependencies: ["Trove"], path: "Samples/CustomStoreType"),
        .executableTarget(name: "sample-config-hot-reload", dependencies: ["Trove"], path: "Samples/ConfigHotReload"),
        .executableTarget(name: "sample-object-graph", dependencies: ["Trove"], path: "Samples/ObjectGraph"),
        // A small test suite written with TroveTesting, as an app's would be; `swift test` runs it.
        .testTarget(
            name: "SampleFixtureTests", dependencies: ["Trove", "TroveTesting"], path: "Samples/FixtureTests",
            exclude: ["Fixtures", "Goldens", "README.md"]),
        // Helpers more than one test target needs (the seeded generator, the hang guard, the
        // lookup of the built `trove`, the runner of child processes); a plain target, not a
        // product, so only tests link it.
        .target(name: "TroveTestSupport", dependencies: ["TroveCore"], path: "Tests/TroveTestSupport"),
        // The support target's own checks: time limits, output on both streams, and waits that
        // do not need the concurrency pool.
        .testTarget(name: "TroveTestSupportTests", dependencies: ["TroveTestSupport"]),
        .testTarget(name: "TroveCoreTests", dependencies: ["TroveCore", "TroveTesting", "TroveTestSupport"]),
        .testTarget(name: "FixtureTests", dependencies: ["Trove", "TroveTesting", "TroveTestSupport"]),
        .testTarget(name: "TroveArchiveTests", dependencies: ["Trove", "TroveTestSupport"]),
        .testTarget(name: "TroveStoreTests", dependencies: ["Trove", "TroveTestSupport"]),
        .testTarget(name: "TroveTestingTests", dependencies: ["Trove", "TroveTesting", "TroveTestSupport"]),
        .testTarget(
            name: "TroveSnapshotTestingTests", dependencies: ["Trove", "TroveSnapshotTesting"],
            exclude: ["__Snapshots__"]),
        .testTarget(name: "TroveCLITests", dependencies: ["Trove", "trove", "TroveTesting", "TroveTestSupport"]),
        // The code listings of README.md and of the DocC catalog (Sources/Trove/Trove.docc), each
        // compiled here and run by DocumentationTests, which also checks that every ```swift block
        // of those documents is one of these listings, word for word, and runs their shell commands.
        .executableTarget(name: "trove-doc-listings", dependencies: ["Trove"], path: "Tests/DocumentationListings"),
        .testTarget(
            name: "DocumentationTests",
            dependencies: ["Trove", "TroveTesting", "TroveTestSupport", "trove", "trove-doc-listings"],
            exclude: ["Fixtures", "Goldens"]),
        .executableTarget(name: "trove-preferences-writer", dependencies: ["Trove"], path: "Tests/PreferencesWriter"),
        .testTarget(
            name: "TrovePreferencesTests", dependencies: ["Trove", "trove", "trove-preferences-writer", "TroveTestSupport"]),
        // A child process for the file layer's tests: it saves in a loop until killed, writes
        // under a file-size limit, holds locks, so that the tests observe what another process
        // (or a killed one) leaves on disk. Only tests use it.
        .executableTarget(
            name: "TroveFileIOTestHelper",
            dependencies: ["TroveFileIO", .product(name: "SystemPackage", package: "swift-system")],
            path: "Tests/TroveFileIOTestHelper"
        ),
        .testTarget(
            name: "TroveFileIOTests",
            dependencies: [
                "TroveFileIO", "TroveFileIOTestHelper", "TroveTestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
