// swift-tools-version: 6.1
// A separate package so that libplist, a benchmark-only peer, never becomes a dependency of Trove.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which is wherever the repository was cloned
// (`trove`, `Trove`, `main`, ...), so the identity is derived rather than spelled out.
let rootPackageIdentity = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "TroveBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .systemLibrary(
            name: "CLibplist",
            pkgConfig: "libplist-2.0",
            providers: [.apt(["libplist-dev"]), .brew(["libplist"])]
        ),
        .systemLibrary(name: "CSystemMemory"),
        // What both executables generate: the seeded generator and the Codable model.
        .target(
            name: "BenchmarkModels",
            dependencies: [.product(name: "Trove", package: rootPackageIdentity)]
        ),
        .executableTarget(
            name: "TroveBench",
            dependencies: [
                "BenchmarkModels",
                .product(name: "Trove", package: rootPackageIdentity),
                "CLibplist",
                "CSystemMemory",
            ]
        ),
        // One Trove operation on one file in a loop, for profilers; see its main.swift.
        .executableTarget(
            name: "TroveProfile",
            dependencies: ["BenchmarkModels", .product(name: "Trove", package: rootPackageIdentity)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
