// swift-tools-version: 6.1
// A separate package so that sanitizer and coverage flags never reach the main build. `Fuzz/run`
// builds it with `-sanitize=fuzzer,address -parse-as-library`; see README.md.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its directory, which is wherever the repository was cloned
// (`trove`, `Trove`, `main`, ...), so the identity is derived rather than spelled out.
let rootPackageIdentity = URL(fileURLWithPath: Context.packageDirectory)
    .deletingLastPathComponent().lastPathComponent.lowercased()

let trove: Target.Dependency = .product(name: "Trove", package: rootPackageIdentity)

let fuzzTargetNames = ["FuzzBinary", "FuzzXML", "FuzzOpenStep", "FuzzJSON", "FuzzDetect", "FuzzRoundTrip", "FuzzArchive"]

let package = Package(
    name: "TroveFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // The checks the fuzz targets share: what must hold for every input a reader accepts.
        .target(name: "FuzzChecks", dependencies: [trove]),
        // One module per fuzz target, each defining `LLVMFuzzerTestOneInput`. They are library
        // targets on purpose: SwiftPM links an executable with `--defsym main=<Module>_main`, which
        // `-parse-as-library` never emits, so `Fuzz/run` links each one itself with libFuzzer's `main`.
    ] + fuzzTargetNames.map { .target(name: $0, dependencies: [trove, "FuzzChecks"]) } + [
        // Builds every fuzz target and nothing else: `swift build --target AllFuzzTargets`.
        .target(name: "AllFuzzTargets", dependencies: fuzzTargetNames.map { .target(name: $0) }),
    ],
    swiftLanguageModes: [.v6]
)
