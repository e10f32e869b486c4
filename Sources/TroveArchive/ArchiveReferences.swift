import TroveCore

/// The references a Foundation collection stores (`NS.objects`, `NS.keys`, or the legacy
/// `NS.object.N`), as fields: almost always UIDs, which a binary archive read in place hands over
/// as plain numbers, without building a value per element.
@usableFromInline
struct ArchiveReferences: RandomAccessCollection {
    enum Storage {
        case uids([UInt64])
        case values([PlistValue])
    }

    let storage: Storage

    init(_ storage: Storage) { self.storage = storage }

    @usableFromInline var startIndex: Int { 0 }

    @usableFromInline var endIndex: Int {
        switch storage {
        case .uids(let uids): uids.count
        case .values(let values): values.count
        }
    }

    @usableFromInline subscript(position: Int) -> PlistValue {
        switch storage {
        case .uids(let uids): .uid(uids[position])
        case .values(let values): values[position]
        }
    }
}

/// What a field that should list a collection's references holds.
enum StoredReferences {
    case missing
    case notAnArray(PlistValue.Kind)
    case array(ArchiveReferences)
}
