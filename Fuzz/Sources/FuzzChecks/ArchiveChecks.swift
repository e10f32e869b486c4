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
            // Typed by construction (throws(PlistError)). Read in place, a binary archive may
            // decode (a broken object nothing refers to is never read), or fail, but typed.
            expectTyped { _ = try KeyedUnarchiver().decode(PlistValue.self, from: Data(bytes)) }
            return
        }
        checkInPlaceAgrees(Data(bytes), archive)
        for allowed in [nil, allowedArchiveClasses] {
            let unarchiver = KeyedUnarchiver(allowedClasses: allowed)
            expectTyped { _ = try unarchiver.plainValue(of: archive, options: ArchivePlainOptions(decodesNestedArchives: true)) }
            expectTyped { _ = try unarchiver.decode(PlistValue.self, from: archive) }
            expectTyped {
                let graph = try unarchiver.decodeGraph(from: archive)
                let again = try KeyedArchiver().archive(graph)
                let reread = try KeyedUnarchiver().decodeGraph(from: KeyedArchive(data: again))
                require(reread.topLevel.count == graph.topLevel.count, "a re-archived graph lost top-level entries")
                for (original, copy) in zip(graph.topLevel, reread.topLevel) {
                    if case .object(let a) = original.value {
                        guard case .object(let b) = copy.value, a.isEquivalent(to: b) else {
                            fail("a re-archived generic graph decoded to a different graph")
                        }
                    }
                }
            }
            // The typed Foundation mappings: what decodes archives again and decodes equal.
            expectTyped { try checkTypedRoundTrip(IndexSet.self, unarchiver, archive) }
            expectTyped { try checkTypedRoundTrip(ArchivedOrderedSet<String>.self, unarchiver, archive) }
            expectTyped { try checkTypedRoundTrip(ArchivedAttributedString<String>.self, unarchiver, archive) }
            expectTyped { _ = try unarchiver.decode(ArchivedAttributedString<ArchiveField>.self, from: archive) }
        }
    }

    /// A binary archive decoded in place (``KeyedUnarchiver/decode(_:from:forKey:)`` on its
    /// bytes) gives what the archive read whole gives: the same value or the same error.
    private static func checkInPlaceAgrees(_ data: Data, _ archive: KeyedArchive) {
        guard data.starts(with: "bplist".utf8) else { return }
        let unarchiver = KeyedUnarchiver()
        for entry in archive.topLevel {
            let inPlace = outcome { try unarchiver.decode(PlistValue.self, from: data, forKey: entry.key) }
            let whole = outcome { try unarchiver.decode(PlistValue.self, from: archive, forKey: entry.key) }
            switch (inPlace, whole) {
            case (.success(let a), .success(let b)):
                require(a == b, "an archive decoded in place to another value than read whole")
            case (.failure(let a), .failure(let b)):
                require(a.code == b.code, "an archive decoded in place failed with \(a.code), read whole with \(b.code)")
            default:
                fail("an archive decoded in place and read whole disagree: \(inPlace) vs \(whole)")
            }
        }
    }

    private static func outcome<T>(_ body: () throws -> T) -> Result<T, PlistError> {
        do { return .success(try body()) } catch let error as PlistError { return .failure(error) } catch {
            fail("an archive was refused with a \(type(of: error)), not a PlistError: \(error)")
        }
    }

    /// Decodes the root as `T`; if it decodes, archives it and decodes that to an equal value.
    private static func checkTypedRoundTrip<T: ArchiveRepresentable & Equatable>(
        _ type: T.Type, _ unarchiver: KeyedUnarchiver, _ archive: KeyedArchive
    ) throws {
        let value = try unarchiver.decode(T.self, from: archive)
        let again = try KeyedUnarchiver().decode(T.self, from: KeyedArchiver().archive(value))
        require(again == value, "a \(T.self) archived again decoded to a different value")
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
