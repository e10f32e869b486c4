import CTroveFastPaths
import Foundation

extension BinaryLayout {
    /// One column of a layout's walk (the objects met, or the subtrees' extents), one entry a
    /// step, immutable once made.
    ///
    /// The recorder writes the column into a `malloc` block reserved for the longest walk the
    /// file allows (its object area read as references), then gives the block back down to the
    /// walk's length with `realloc`, which shrinks a block where it lies. An array could only be
    /// cut by copying it, while both copies are alive, or kept with its reservation: most files
    /// walk a quarter to half of the bound.
    struct WalkSteps: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
        /// `@unchecked Sendable`: the entries are written before the storage is shared, and
        /// never after.
        private final class Storage: @unchecked Sendable {
            let entries: UnsafeMutablePointer<UInt32>
            let count: Int

            init(entries: UnsafeMutablePointer<UInt32>, count: Int) {
                self.entries = entries
                self.count = count
            }

            deinit { free(entries) }
        }

        private let storage: Storage

        /// Takes over `entries`, a `malloc` block of `capacity` entries whose first `count` are
        /// written, shrunk to them when that gives back at least ``smallestShrink`` entries.
        init(takingMalloced entries: UnsafeMutablePointer<UInt32>, count: Int, capacity: Int) {
            guard capacity - count >= Self.smallestShrink else {
                storage = Storage(entries: entries, count: count)
                return
            }
            // A block of at least one entry: `realloc` to no bytes may free it.
            let bytes = Swift.max(count, 1) * MemoryLayout<UInt32>.stride
            let shrunk = realloc(entries, bytes).map { $0.assumingMemoryBound(to: UInt32.self) } ?? entries
            storage = Storage(entries: shrunk, count: count)
        }

        /// The fewest unused entries (1 KB) worth a `realloc`: below it, the call costs more
        /// than the memory it would give back is worth, and a small block stays in the
        /// allocator's per-thread cache.
        static let smallestShrink = 256

        /// The steps of `elements`, in order.
        init(_ elements: some Collection<UInt32>) {
            let entries = Self.allocate(capacity: elements.count)
            _ = UnsafeMutableBufferPointer(start: entries, count: elements.count).initialize(from: elements)
            self.init(takingMalloced: entries, count: elements.count, capacity: elements.count)
        }

        init(arrayLiteral elements: UInt32...) { self.init(elements) }

        /// A `malloc` block of `capacity` entries (at least one) for ``init(takingMalloced:count:)``;
        /// the entries are not initialized.
        static func allocate(capacity: Int) -> UnsafeMutablePointer<UInt32> {
            guard let block = malloc(Swift.max(capacity, 1) * MemoryLayout<UInt32>.stride) else {
                fatalError("out of memory for \(capacity) walk steps")
            }
            return block.assumingMemoryBound(to: UInt32.self)
        }

        /// Frees a block of ``allocate(capacity:)`` that was never handed over.
        static func deallocate(_ entries: UnsafeMutablePointer<UInt32>) { free(entries) }

        var startIndex: Int { 0 }
        var endIndex: Int { storage.count }

        subscript(position: Int) -> UInt32 {
            precondition(position >= 0 && position < storage.count, "walk step out of range")
            return storage.entries[position]
        }

        /// The entries, which stay where they are while this value (or a copy) lives.
        var entries: UnsafePointer<UInt32> { UnsafePointer(storage.entries) }

        func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt32>) throws -> R) rethrows -> R {
            try body(UnsafeBufferPointer(start: storage.entries, count: storage.count))
        }

        /// How many entries the block holds room for, as the allocator reports it (for tests:
        /// the walk keeps no reservation past its length).
        var reservedCount: Int { trove_allocation_size(storage.entries) / MemoryLayout<UInt32>.stride }

        static func == (a: WalkSteps, b: WalkSteps) -> Bool {
            a.count == b.count && (a.storage === b.storage || memcmp(a.storage.entries, b.storage.entries, a.count * 4) == 0)
        }
    }
}
