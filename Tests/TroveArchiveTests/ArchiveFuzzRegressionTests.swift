import Foundation
import Testing
import Trove

/// Inputs the `archive` fuzz target found (`Tests/FuzzRegressions/archive/`), replayed through the
/// target's checks: every refusal is a `PlistError`, and a generic graph that decodes archives
/// again to an equivalent graph.
@Suite("Archive fuzz regressions")
struct ArchiveFuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzRegressions/archive", isDirectory: true)

    static let inputs: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()

    @Test("the folder holds inputs")
    func folderIsFound() { #expect(!Self.inputs.isEmpty) }

    @Test("each input passes the fuzz target's checks", arguments: inputs)
    func replay(_ name: String) throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(name))
        guard let archive = try? KeyedArchive(data: data) else { return }
        for allowed in [nil, Set(["NSArray", "NSDictionary", "NSString", "NSData", "NSDate", "NSNull"])] {
            let unarchiver = KeyedUnarchiver(allowedClasses: allowed)
            do {
                let graph = try unarchiver.decodeGraph(from: archive)
                let reread = try KeyedUnarchiver().decodeGraph(from: KeyedArchive(data: KeyedArchiver().archive(graph)))
                #expect(reread.topLevel.count == graph.topLevel.count)
                for (original, copy) in zip(graph.topLevel, reread.topLevel) {
                    if case .object(let a) = original.value {
                        guard case .object(let b) = copy.value else {
                            Issue.record("\(original.key) is no longer an object")
                            continue
                        }
                        #expect(a.isEquivalent(to: b), "\(name): \(original.key)")
                    }
                }
            } catch {
                #expect(error is PlistError, "\(name): \(error)")
            }
        }
    }
}
