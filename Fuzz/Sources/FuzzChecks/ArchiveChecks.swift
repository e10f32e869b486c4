import Foundation
import Trove

extension FuzzChecks {
    /// The classes the secure pass allows: Foundation's property-list classes.
    static let allowedArchiveClasses: Set<String> = ["NSArray", "NSDictionary", "NSString", "NSData", "NSDate", "NSNull"]

    /// Decodes an archive as a plain value, as a generic graph, and (secure) with an allowed
    /// set; re-archives the generic graph and decodes it again.
    public static func checkArchive(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: Data(bytes))
        } catch {
            return  // typed by construction (throws(PlistError))
        }
        for allowed in [nil, allowedArchiveClasses] {
            let unarchiver = KeyedUnarchiver(allowedClasses: allowed)
            expectTyped { _ = try unarchiver.plainValue(of: archive, options: ArchivePlainOptions(decodesNestedArchives: true)) }
            expectTyped { _ = try unarchiver.decode(PlistValue.self, from: archive) }
            expectTyped {
                let graph = try unarchiver.decodeGraph(from: archive)
                let objects = graph.compactMap { entry -> (String, ArchivedObject)? in
                    if case .object(let object) = entry.value { return (entry.key, object) }
                    return nil
                }
                guard !objects.isEmpty else { return }
                let again = try KeyedArchiver().archive(topLevel: objects.map { ($0.0, $0.1 as any ArchiveRepresentable) })
                let reread = try KeyedUnarchiver().decodeGraph(from: KeyedArchive(data: again))
                for ((_, original), entry) in zip(objects, reread) {
                    guard case .object(let copy) = entry.value, original.isEquivalent(to: copy) else {
                        fail("a re-archived generic graph decoded to a different graph")
                    }
                }
            }
        }
    }

    private static func expectTyped(_ body: () throws -> Void) {
        do {
            try body()
        } catch is PlistError {
        } catch {
            fail("an archive was refused with a \(type(of: error)), not a PlistError: \(error)")
        }
    }
}
